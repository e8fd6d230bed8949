// Bounds on one event subscription, so a single request cannot make the pipeline do unbounded work.
import { MAX_FILTER_LENGTH } from '../../cel/limits.js';

/**
 * Sources per subscription. Types are unique within a subscription and docs/events.md lists 49 of them;
 * a real subscription names a handful, and each source is one more route the pipeline keeps.
 */
export const MAX_SOURCES_PER_SUBSCRIPTION = 32;

/** Destinations per subscription: every matching event is written once to each of them. */
export const MAX_DESTINATIONS_PER_SUBSCRIPTION = 16;

/** Characters of one filter; the filter engine's own bound, checked first so the error is plain. */
export const MAX_SUBSCRIPTION_FILTER_LENGTH = MAX_FILTER_LENGTH;

/** Event subscriptions count description and metadata in characters (code points): 255 and 4096. */
export const MAX_SUBSCRIPTION_DESCRIPTION_CHARS = 255;
export const MAX_SUBSCRIPTION_METADATA_CHARS = 4096;
