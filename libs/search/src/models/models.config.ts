export interface ModelsConfig {
  /**
   * Other names an operator maps to a served model (`LARDER_MODEL_ALIASES`, `alias=model,…`): a
   * client that asks for `mixedbread-ai/mxbai-embed-large-v1` is answered by the model named here,
   * and every response names the model that answered.
   */
  aliases: Record<string, string>;
}
export const MODELS_CONFIG = Symbol('MODELS_CONFIG');
