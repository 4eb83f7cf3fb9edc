import { KeyKind, Scope } from '@askdata/contracts';
import type { SessionClaims } from '../sessions/session-tokens';

/** Who a request comes from, as its verified API key says: the key, the scope it may act in, its instructions. */
export interface Caller {
  keyId: string;
  scope: Scope;
  instructions: string | null;
  /** `secret` keys may use every /v1 route; `publishable` ones ask questions, from their `origins` only. */
  kind: KeyKind;
  origins: string[];
  /** A publishable key's session (`Askdata-Session`), verified; null without one. */
  session?: SessionClaims | null;
}
