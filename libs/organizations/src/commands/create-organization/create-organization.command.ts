export class CreateOrganizationCommand {
  constructor(
    readonly name: string,
    readonly options: { organizationId?: string; root?: boolean; actor?: string } = {},
  ) {}
}
