import type { Principal } from '@larder/kernel';

export class DeleteResponseCommand {
  constructor(
    readonly principal: Principal,
    readonly responseId: string,
  ) {}
}
