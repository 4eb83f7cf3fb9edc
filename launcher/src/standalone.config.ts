import { setting } from '@askdata/common';

export const standaloneSettings = {
  DATA_DIR: setting.requiredString('Standalone mode: where the embedded database and the admin token are kept.', {
    default: './data',
  }),
};
