// A server's sampling request drafted by the studio's model: the page asks for a draft (the user
// has seen the request and chosen to spend the model on it), the studio sends the request to the
// model as the host loop would (same messages, tools and limits: host/loop/server-requests.ts),
// and hands the model's turn back to the page as a sampling result. Nothing reaches the server
// here: the user reads the draft, may edit it, and sends it (or refuses) through the usual answer
// route, so a person approves both the request and the answer, as the spec wants of hosts.
import type { ModelProvider, ModelUsage } from '../host/model.js';
import { samplingRequest, samplingResult } from '../host/loop/server-requests.js';
import type { CreateMessageParams, CreateMessageResult } from '../protocol/params.js';

export interface SamplingDraft {
  /** The model's turn as a `sampling/createMessage` result, for the page to show and edit. */
  result: CreateMessageResult;
  usage?: ModelUsage;
}

/** Asks `provider` for one turn answering `params`; aborted with `signal`. */
export async function draftSampling(provider: ModelProvider, params: CreateMessageParams, signal: AbortSignal): Promise<SamplingDraft> {
  const response = await provider.complete(samplingRequest(provider, params, signal));
  return { result: samplingResult(response, provider.model), ...(response.usage ? { usage: response.usage } : {}) };
}
