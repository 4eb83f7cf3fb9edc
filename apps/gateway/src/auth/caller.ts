import { Scope } from '@askdata/contracts';

/** Who a request comes from, as its verified API key says: the key, the scope it may act in, its instructions. */
export interface Caller {
  keyId: string;
  scope: Scope;
  instructions: string | null;
}
