import { Initial1795362732772 } from './1795362732772-initial';

/** In order of application. */
export const MIGRATIONS = [Initial1795362732772];
