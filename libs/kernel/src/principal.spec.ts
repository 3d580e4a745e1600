import 'reflect-metadata';
import { HttpCode, Post, RequestMethod } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { REQUIRED_SCOPE, StoreRoute } from './principal';

class Routes {
  @StoreRoute('write', Post('upload'), HttpCode(201))
  upload(): void {}
}

describe('StoreRoute', () => {
  it('declares the route and the key scope on the store its path names', () => {
    const handler = Object.getOwnPropertyDescriptor(Routes.prototype, 'upload')!.value as object;
    expect(Reflect.getMetadata(REQUIRED_SCOPE, handler)).toEqual({
      method: 'write',
      resourceType: 'store',
      resourceIdParam: 'store_identifier',
    });
    expect(Reflect.getMetadata(PATH_METADATA, handler)).toBe('upload');
    expect(Reflect.getMetadata(METHOD_METADATA, handler)).toBe(RequestMethod.POST);
    expect(Reflect.getMetadata(HTTP_CODE_METADATA, handler)).toBe(201);
  });
});
