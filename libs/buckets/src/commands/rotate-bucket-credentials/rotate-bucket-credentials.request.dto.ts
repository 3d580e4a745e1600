import { Allow } from 'class-validator';

/** `BucketRotateCredentialsParams` (contract §8): `credentials` is checked by the writer, which never echoes it. */
export class RotateBucketCredentialsRequestDto {
  @Allow() credentials?: unknown;
}
