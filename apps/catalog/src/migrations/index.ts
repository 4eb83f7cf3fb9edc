import { Initial1795362735131 } from './1795362735131-initial';

/** In order of application. */
export const MIGRATIONS = [Initial1795362735131];
