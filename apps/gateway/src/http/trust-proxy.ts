import { ConfigError, Setting } from '@askdata/common';
import { isIP } from 'node:net';

/** What Express's `trust proxy` takes from this setting: nothing, a hop count, or the proxies' addresses. */
export type TrustProxy = false | number | string[];

const NAMED = ['loopback', 'linklocal', 'uniquelocal'];

function isSubnet(entry: string): boolean {
  const [address, bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (!family || rest.length) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

/**
 * `TRUST_PROXY`: which peers may tell the gateway the client's address in `X-Forwarded-For` (and the scheme and
 * host in `X-Forwarded-Proto`/`-Host`). `false`: none, the peer is the client. A number: that many proxies in front,
 * the client is the address the outermost of them appended. Addresses or subnets, comma-separated (`loopback`,
 * `linklocal`, `uniquelocal` name the usual ranges): the client is the last address not among them. `true` is
 * refused: it would trust every peer, so anyone could name any address and escape the per-address limits.
 */
export const trustProxySetting: Setting<TrustProxy> = {
  describe: {
    help: 'Proxies whose X-Forwarded-For names the client: false (none; the peer is the client), the number of proxies in front, or their addresses and subnets, comma-separated (loopback, linklocal and uniquelocal name those ranges).',
    default: 'false',
  },
  parse(raw, name) {
    const v = (raw ?? '').trim();
    if (v === '' || ['false', '0', 'no', 'off'].includes(v.toLowerCase())) return false;
    if (['true', 'yes', 'on'].includes(v.toLowerCase())) {
      throw new ConfigError(
        `Invalid setting ${name}: "${v}" would trust X-Forwarded-For from any peer, which anyone can send; give the number of proxies in front of the gateway or their addresses (got "${v}").`,
      );
    }
    if (/^\d+$/.test(v)) {
      const hops = Number(v);
      if (hops > 10) throw new ConfigError(`Invalid setting ${name}: at most 10 proxies (got "${v}").`);
      return hops;
    }
    const entries = v.split(',').map((e) => e.trim());
    const wrong = entries.filter((e) => !NAMED.includes(e) && !isSubnet(e));
    if (wrong.length) {
      throw new ConfigError(
        `Invalid setting ${name}: ${wrong.map((e) => `"${e}"`).join(', ')} is not an IP address, a subnet (address/bits) or one of ${NAMED.join(', ')} (got "${v}").`,
      );
    }
    return entries;
  },
};
