import { serviceSettings, ConfigOf } from '@askdata/common';

export const catalogSettings = { ...serviceSettings };
export type CatalogConfig = ConfigOf<typeof catalogSettings>;
