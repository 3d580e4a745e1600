import { Allow } from 'class-validator';

/** `BucketRotateCredentialsParams`: `credentials` is checked by the writer, which never echoes it. */
export class RotateBucketCredentialsRequestDto {
  @Allow() credentials?: unknown;
}
