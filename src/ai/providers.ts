/** The tool-definition formats of `provd ai tools --provider` (provider-schemas.ts builds them). */
export const providers = ['anthropic', 'openai', 'mcp'] as const;
export type Provider = (typeof providers)[number];
