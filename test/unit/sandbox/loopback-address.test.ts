import { describe, expect, it } from 'vitest';
import { isLoopbackAddress } from '../../../src/sandbox/loopback-address';

describe('isLoopbackAddress', () => {
  it('takes this machine\'s addresses as a socket names them, and nothing that merely starts like one', () => {
    for (const address of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) expect(isLoopbackAddress(address), address).toBe(true);
    for (const address of [undefined, '', '10.0.0.1', '::ffff:10.0.0.1', '127.0.0.1.example.com', '1127.0.0.1', '::2']) expect(isLoopbackAddress(address), String(address)).toBe(false);
  });
});
