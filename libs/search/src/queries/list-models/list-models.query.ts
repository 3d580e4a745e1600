export class ListModelsQuery {}
