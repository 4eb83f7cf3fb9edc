import { commonSettings, ConfigOf } from '@askdata/common';

export const catalogSettings = { ...commonSettings };
export type CatalogConfig = ConfigOf<typeof catalogSettings>;
