export class GetModelQuery {
  constructor(
    /** A served model's name or an alias of one. */
    readonly name: string,
  ) {}
}
