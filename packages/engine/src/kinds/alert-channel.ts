import { AlertChannelCreate } from '@vigil/schema';
import type { z } from 'zod';
import { defineAdapter } from './define.js';
import type { Payload } from './types.js';

const schemaByType = new Map<unknown, z.ZodObject>(
  AlertChannelCreate.options.map((option) => [option.shape.type.value, option as unknown as z.ZodObject]),
);

export const alertChannelAdapter = defineAdapter({
  kind: 'alert-channel',
  // One schema per channel type; an unknown type falls back to the first so normalisation still runs.
  schemaFor: (payload: Payload) => schemaByType.get(payload.type) ?? (AlertChannelCreate.options[0] as unknown as z.ZodObject),
  endpoints: { list: 'alertChannels.list', create: 'alertChannels.create', update: 'alertChannels.update', remove: 'alertChannels.delete' },
  // The service cannot change a channel's type in place (PUT keeps it): a new type is a new channel.
  replaceOn: ['type'],
});
