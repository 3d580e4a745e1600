import { Controller, Get } from '@nestjs/common';
import { existsSync, readFileSync } from 'fs';
import { dirname, join } from 'path';
import { Public } from '@larder/kernel';

function packageVersion(): string {
  let dir = __dirname;
  for (let i = 0; i < 8; i++) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'larder') return pkg.version ?? '0.0.0';
    }
    dir = dirname(dir);
  }
  return '0.0.0';
}

export const LARDER_VERSION = packageVersion();

@Controller()
export class InfoHttpController {
  /** `InfoResponse`: public, no key needed. */
  @Get()
  @Public()
  info(): { name: string; version: string } {
    return { name: 'larder', version: LARDER_VERSION };
  }
}
