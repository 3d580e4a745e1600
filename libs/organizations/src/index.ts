import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { CreateOrganizationHandler } from './commands/create-organization/create-organization.handler';

export { CreateOrganizationCommand } from './commands/create-organization/create-organization.command';
export type { OrganizationCreatedResult } from './commands/create-organization/create-organization.handler';

@Module({ imports: [CqrsModule], providers: [CreateOrganizationHandler] })
export class OrganizationsModule {}
