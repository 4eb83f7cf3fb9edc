import { setting } from '@askdata/common';

/** Settings of publishable keys and their sessions (part of the gateway's settings). */
export const publishableKeySettings = {
  SESSION_SECRET: setting.string(
    'Secret that signs session tokens (POST /v1/sessions); every gateway of a deployment needs the same. Unset: derived from ADMIN_TOKEN, so changing that token ends every session.',
    { secret: true },
  ),
  RATE_LIMIT_PER_ADDRESS_PER_MINUTE: setting.int('Requests per minute one client address may make with one publishable key, on top of the per-key limit (0 disables).', {
    default: 60,
    min: 0,
    max: 10000000,
  }),
};
