import { QueryInt } from '@larder/kernel';

export class ListApiKeysRequestDto {
  @QueryInt(1, 1000) limit?: number;
  @QueryInt(0, 1_000_000_000) offset?: number;
}
