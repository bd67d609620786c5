import { dayRange, flag, layerList, moment, positiveInt, strictInput, string } from './fields.js';

/** `recall` (and `mem search`): ranked memories for a query. */
export const recallFields = {
  query: string('query').describe('what to look for'),
  k: positiveInt('k').optional().describe('how many results (default: 8)'),
  now: moment('now')
    .optional()
    .describe('ISO 8601 moment recency and time words are measured from (default: now)'),
  layers: layerList().optional().describe('only these layers (default: all)'),
  range: dayRange('range')
    .optional()
    .describe('only episode entries of these days (overrides time words in the query)'),
  all: flag('all').optional().describe('include superseded and archived notes'),
};

export const recallInput = strictInput(recallFields);
