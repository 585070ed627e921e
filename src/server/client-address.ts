/**
 * The key a client's address is counted under (connections per address, failed logins): an IPv4
 * address as it is, an IPv6 one by its /64 — one host or one site usually holds a whole /64, so
 * counting each of its 2^64 addresses apart would set no limit at all.
 */
import { isIPv6 } from 'node:net';

/** `address` (IPv4, IPv4-mapped or IPv6) as the key a client is counted under. */
export function clientKey(address: string): string {
  if (!isIPv6(address)) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  const [head = '', tail = ''] = address.split('%')[0]!.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = address.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
