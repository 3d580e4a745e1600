/** The 422 entries (loc, type, msg) a request DTO answers for a body, for the request-validation specs. */
import { validateRequest, ValidationFailedError } from '@larder/kernel';

export type Problem = [(string | number)[], string, string];

/** The 422 entries (loc, type, msg) of a body: the DTO's checks, then what its `params()` compiles below the fields. */
export async function problems(dto: new () => object, body: unknown): Promise<Problem[]> {
  try {
    const d = (await validateRequest(dto, body)) as { params?: () => unknown };
    d.params?.();
    return [];
  } catch (err) {
    if (err instanceof ValidationFailedError) return err.detail.map((x) => [x.loc, x.type, x.msg]);
    throw err;
  }
}

/** The smallest store selection a search-family body needs. */
export const S = { store_identifiers: ['s1'] };
