import { inCidr, specialRange } from './addresses';

describe('specialRange', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.1.2', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.100.100.200', 'shared (carrier-grade NAT)'],
    ['0.0.0.0', 'unspecified ("this network")'],
    ['255.255.255.255', 'reserved (and broadcast)'],
    ['224.0.0.1', 'multicast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local (cloud metadata)'],
    ['64:ff9b::a9fe:a9fe', 'link-local (cloud metadata)'],
    ['2002:7f00:1::', 'loopback'],
    ['::127.0.0.1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fd00:ec2::254', 'unique local (private)'],
    ['fc00::1', 'unique local (private)'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
  ])('%s is %s', (address, range) => {
    expect(specialRange(address)).toBe(range);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '192.169.0.1',
    '2606:4700::1111',
    '2a00:1450:4001:81b::200e',
    '::ffff:8.8.8.8',
  ])('%s is public', (address) => {
    expect(specialRange(address)).toBeNull();
  });

  it('refuses what is not an address', () => {
    expect(specialRange('example.com')).toBe('not an IP address');
  });
});

describe('inCidr', () => {
  it('matches prefixes and single addresses of both families', () => {
    expect(inCidr('10.1.2.3', '10.0.0.0/8')).toBe(true);
    expect(inCidr('11.1.2.3', '10.0.0.0/8')).toBe(false);
    expect(inCidr('172.20.0.1', '172.16.0.0/12')).toBe(true);
    expect(inCidr('172.32.0.1', '172.16.0.0/12')).toBe(false);
    expect(inCidr('127.0.0.1', '127.0.0.1')).toBe(true);
    expect(inCidr('127.0.0.2', '127.0.0.1')).toBe(false);
    expect(inCidr('::ffff:127.0.0.1', '127.0.0.1')).toBe(true);
    expect(inCidr('fd00::5', 'fd00::/8')).toBe(true);
    expect(inCidr('fe00::5', 'fd00::/8')).toBe(false);
    expect(inCidr('::1', '127.0.0.1')).toBe(false);
  });
});
