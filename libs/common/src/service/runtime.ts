import { BusOptions } from '../bus/bus.options';
import { DatabaseOptions } from '../database/data-source';

/** What a service needs to run; the only difference between standalone and distributed mode. */
export interface ServiceRuntime<C> {
  bus: BusOptions;
  database: DatabaseOptions;
  config: C;
}
