/**
 * What the Chat view offers with the Pi this chat runs. The server asks the running Pi what it
 * supports (`pi/chat/start`'s `capabilities`, lsp_server/pi_rpc/capabilities.py); this module turns
 * each feature Pi lacks into one sentence naming what is missing and a Pi version that has it, which
 * the view shows where the feature would be (a disabled button's title, the line under the header)
 * and the host says instead of sending a command Pi would refuse. No VS Code here (unit-tested).
 */
import type { ChatCapabilities, ChatFeature } from '../protocol.generated';

export type FeatureId = ChatFeature['id'];

export interface FeatureView {
  /** Each feature this Pi lacks, with its sentence. */
  off: Partial<Record<FeatureId, string>>;
  /** The line under the header: every sentence of `off`, then the server's note on an unknown release; null when nothing to say. */
  summary: string | null;
}

export const ALL_ON: FeatureView = { off: {}, summary: null };

/**
 * "Choosing the model needs Pi 1.0.3 or newer: Pi 0.9.0 lacks the `set_model` command." — one sentence
 * (the server words each feature's `what` as a singular subject).
 */
export function featureSentence(feature: ChatFeature, piVersion: string): string {
  const since = feature.since ? `Pi ${feature.since} or newer` : 'a newer Pi';
  const missing = feature.missing ? `: Pi ${piVersion} lacks ${feature.missing}` : '';
  return `${feature.what} needs ${since}${missing}.`;
}

/** The view's answer to a chat's capabilities (none from an older server: everything on). */
export function featureView(capabilities: ChatCapabilities | null | undefined): FeatureView {
  if (!capabilities) {
    return ALL_ON;
  }
  const off: Partial<Record<FeatureId, string>> = {};
  for (const feature of capabilities.features) {
    if (!feature.available) {
      off[feature.id] = featureSentence(feature, capabilities.piVersion);
    }
  }
  const lines = Object.values<string>(off);
  if (capabilities.note) {
    lines.push(`${capabilities.note}.`);
  }
  return { off, summary: lines.length > 0 ? lines.join(' ') : null };
}

/** The sentence that stands in for `feature` when Pi lacks it, else null (the feature is on). */
export function unavailable(view: FeatureView, feature: FeatureId): string | null {
  return view.off[feature] ?? null;
}
