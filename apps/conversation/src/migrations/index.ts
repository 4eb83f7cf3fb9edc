import { Initial1795362736169 } from './1795362736169-initial';

/** In order of application. */
export const MIGRATIONS = [Initial1795362736169];
