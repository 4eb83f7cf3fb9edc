import { Initial1795362734068 } from './1795362734068-initial';

/** In order of application. */
export const MIGRATIONS = [Initial1795362734068];
