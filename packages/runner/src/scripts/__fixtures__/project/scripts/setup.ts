import { requireToken } from './sign';

declare const request: { headers: Record<string, string> };

await Promise.resolve();
request.headers['x-token'] = requireToken(process.env.TOKEN);
