import { Initial1795362735131 } from './1795362735131-initial';
import { Languages1795900000000 } from './1795900000000-languages';

/** In order of application. */
export const MIGRATIONS = [Initial1795362735131, Languages1795900000000];
