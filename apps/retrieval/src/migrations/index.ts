import { Initial1795364054715 } from './1795364054715-initial';

/** In order of application. */
export const MIGRATIONS = [Initial1795364054715];
