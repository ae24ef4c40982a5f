"""What a compaction (or a branch summary) costs, what it saves, and when it pays for itself.

Pi sends the summary request(s) with ``cacheRetention: "none"``: every token of the serialized
conversation is billed as new input, and the summary as output. A compaction then replaces the
summarized messages by the summary in every later request, so each later request is smaller by
the difference; the first of them starts a new cached prefix (the old one ended before the cut),
so it pays the whole new context as cache writes (or input) once instead of reading the old one.

With the cache kept warm, each later request would have read the removed tokens from the cache;
that read is the saving per request, and the break-even point is the one-time cost (the summary
calls plus the rewrite) over it. A branch summary removes nothing from the branch it is added to:
it only adds its summary, so it has a cost and no break-even.

That is what Pi pays with the session's model. A summary pi-context's own summarizer made (``compact
--model anthropic/...``, an endpoint in the settings) was paid at that model's prices instead, and its
provider reported the tokens: :class:`SummarizerCalls` prices the calls so, with the reported usage
(the savings stay at the session model's prices: later requests use it).

Before a summary exists (the chat's preview: Pi will write it), its length is estimated
(:func:`expected_summary_tokens`): the branch's previous compaction summary when there is one (Pi
updates it, so the new one is about as long), else :data:`ASSUMED_SUMMARY_TOKENS`; the answer says
which (``summary_output_source``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from lsp_server.cost.prices import ModelPrices, UsageCounts, calculate_cost
from lsp_server.js.values import js_to_string, js_truthy
from lsp_server.session.estimates import estimate_tokens
from lsp_server.tokens.pi import pi_text_tokens

# The summary length assumed when neither a summary nor an earlier one exists: about the size of the two
# compaction summaries real Pi wrote in its fixture session (1,072 and 912 tokens by chars/4).
ASSUMED_SUMMARY_TOKENS: Final = 1000

SummaryOutputSource = Literal["summary", "previous", "assumed"]
SummaryTokensSource = Literal["reported", "estimated"]


@dataclass(frozen=True)
class SummarizerCalls:
    """The summary calls as a real summarizer made them (``pi-context compact --model ...``, an endpoint).

    They are priced at the summarizer model's prices, not the session's, and with the usage the
    provider reported for each call when it reported one (cache reads and writes included).
    """

    prices: ModelPrices
    usage: tuple[UsageCounts, ...] = ()  # one per call; empty: the provider reported none


def call_input_tokens(system: str, messages: Sequence[Any]) -> int:
    """One summary call's prompt by Pi's estimates: the system prompt's chars/4 and each message's estimate."""
    return pi_text_tokens(system) + sum(estimate_tokens(message) for message in messages)


def expected_summary_tokens(previous_summary: Any) -> tuple[int, SummaryOutputSource]:
    """The length a summary not written yet is expected to have, and where the figure comes from."""
    if js_truthy(previous_summary):
        return pi_text_tokens(js_to_string(previous_summary)), "previous"
    return ASSUMED_SUMMARY_TOKENS, "assumed"


@dataclass(frozen=True)
class CompactionEconomics:
    requests: int  # summary calls (two for a split turn)
    summary_input: int  # tokens sent to the summarizer, all uncached
    summary_output: int  # the summary's tokens
    summary_cost: float | None
    removed_per_request: int  # tokens every later request no longer carries (negative: it grows)
    context_before: int
    context_after: int
    rewrite_cost: float | None  # the first later request writing the new prefix, minus reading the old one
    saving_per_request: float | None  # the removed tokens at the cache-read rate
    break_even_requests: int | None  # later requests until the savings cover the one-time cost
    price_source: str
    model: str
    summary_output_source: SummaryOutputSource = "summary"  # the summary itself, or an estimate of it
    summary_model: str | None = None  # the summarizer's model, when the calls are priced at its prices
    summary_price_source: str | None = None
    summary_tokens_source: SummaryTokensSource = "estimated"  # summaryInput/Output: the provider's usage, or Pi's

    def to_json(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "summaryInput": self.summary_input,
            "summaryOutput": self.summary_output,
            "summaryCost": self.summary_cost,
            "removedPerRequest": self.removed_per_request,
            "contextBefore": self.context_before,
            "contextAfter": self.context_after,
            "rewriteCost": self.rewrite_cost,
            "savingPerRequest": self.saving_per_request,
            "breakEvenRequests": self.break_even_requests,
            "priceSource": self.price_source,
            "model": self.model,
            "summaryOutputSource": self.summary_output_source,
            "summaryModel": self.summary_model,
            "summaryPriceSource": self.summary_price_source,
            "summaryTokensSource": self.summary_tokens_source,
        }


def compaction_economics(
    call_inputs: Sequence[int],
    summary_tokens: int,
    summarized_tokens: int,
    context_before: int,
    prices: ModelPrices,
    summary_output_source: SummaryOutputSource = "summary",
    *,
    summarizer: SummarizerCalls | None = None,
) -> CompactionEconomics:
    """``call_inputs``: each summary call's prompt tokens; ``summarized_tokens``: what the cut removes
    (0 for a branch summary); ``context_before``: Pi's context tokens now; ``prices``: the session
    model's (later requests, and the summary calls as Pi would make them with that model).

    ``summarizer``: the calls were made by another model (a run of pi-context's summarizer): they are
    priced at its prices, with the usage its provider reported when there is one for every call.
    """
    removed = summarized_tokens - summary_tokens
    after = max(context_before - removed, 0)
    summary_cost = rewrite = saving = None
    break_even: int | None = None
    rates = prices.rates
    summary_prices = summarizer.prices if summarizer is not None else prices
    reported = summarizer.usage if summarizer is not None and len(summarizer.usage) == len(call_inputs) else ()
    if reported:
        summary_input = int(sum(usage.prompt_tokens for usage in reported))
        summary_output = int(sum(usage.output for usage in reported))
        usages = list(reported)
    else:
        summary_input, summary_output = sum(call_inputs), summary_tokens
        per_call_output = summary_tokens / len(call_inputs) if call_inputs else 0
        usages = [UsageCounts(input=tokens, output=per_call_output) for tokens in call_inputs]
    if summary_prices.rates is not None:
        summary_cost = sum(calculate_cost(summary_prices.rates, summary_prices.tiers, usage).total for usage in usages)
    if rates is not None:
        write = UsageCounts(cache_write=after) if rates.cache_write > 0 else UsageCounts(input=after)
        rewrite = (
            calculate_cost(rates, prices.tiers, write).total
            - calculate_cost(rates, prices.tiers, UsageCounts(cache_read=context_before)).total
        )
        # What every later request saves: its read of the context before minus its read after. Priced as two
        # requests, not as a read of ``removed`` tokens: a tier (a model dearer above 200k) is chosen by the
        # size of the request, so only that prices a cut that brings a request under a tier's threshold.
        saving = (
            calculate_cost(rates, prices.tiers, UsageCounts(cache_read=context_before)).total
            - calculate_cost(rates, prices.tiers, UsageCounts(cache_read=after)).total
            if removed > 0
            else 0.0
        )
        if saving > 0 and summary_cost is not None:
            break_even = max(math.ceil((summary_cost + rewrite) / saving), 0)
    return CompactionEconomics(
        len(call_inputs),
        summary_input,
        summary_output,
        summary_cost,
        removed,
        context_before,
        after,
        rewrite,
        saving,
        break_even,
        prices.price_source,
        prices.name,
        summary_output_source,
        summarizer.prices.name if summarizer is not None else None,
        summarizer.prices.price_source if summarizer is not None else None,
        "reported" if reported else "estimated",
    )
