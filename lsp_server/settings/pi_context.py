"""pi-context's own settings: how it checks, counts, summarizes and where it finds Pi's files.

They arrive as one JSON object (the editor's ``piContext`` configuration section, the language
server's initialization options, or ``--settings <file>`` on the command line) with camelCase keys.
Validation never fails as a whole: each bad value is reported (file or source, line, key path) and
replaced by its default, so one typo in an editor setting does not switch the server off.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

from lsp_server.base import fsread
from lsp_server.base.lenient import SettingsProblem, parse_json_text, validate_leniently
from lsp_server.budget.models import WindowOverrides
from lsp_server.checks import CheckOptions
from lsp_server.rules.scope import DEFAULT_FIXTURE_FOLDERS, CheckScope
from lsp_server.tokens.counter import ModelFamily, TokenEstimator
from lsp_server.vocabulary.limits import Thresholds
from lsp_server.vocabulary.profiles import DEFAULT_PROFILE, ProfileId, rule_profile_setting_description
from lsp_server.vocabulary.providers import DEFAULT_WIRE_FORMAT, WireFormat, wire_format_setting_description

SummarizerMode = Literal["offline", "endpoint"]
TrustOverride = Literal["pi", "trusted", "untrusted"]

# Keys of the editor's ``piContext`` section that only the client reads (how to start the server,
# tracing, the status bar). They arrive with the rest and are not typos.
CLIENT_ONLY_KEYS = frozenset({"python", "server", "trace", "statusBar"})


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, strict=True, extra="forbid", frozen=True)


class TokenSettings(_Model):
    estimator: TokenEstimator = Field(
        default="weighted",
        description=(
            '"pi": Pi\'s own ceil(chars/4), the number Pi compares with the window; "weighted": per-script '
            'weights fitted per model family (about 5-8% error); "exact": a real tokenizer where one exists '
            "offline (GPT-style vocabularies), else weighted."
        ),
    )
    model_family: ModelFamily = Field(
        default="auto",
        description=(
            'Tokenizer family: "gpt" (o200k-like weights), "claude" (Claude 3 to Opus 4.6), "claude47" '
            '(Opus 4.7 and later), or a vocabulary for exact counts ("o200k", "cl100k", "llama3", "qwen3", '
            'weighted with "gpt" weights otherwise); "auto" picks it from the model name.'
        ),
    )


class SummarizerSettings(_Model):
    mode: SummarizerMode = Field(
        default="offline",
        description='"offline": an extractive summary made locally, no network; "endpoint": call an LLM.',
    )
    url: str | None = Field(
        default=None, description="Base URL of the endpoint (OpenAI-compatible or Anthropic Messages API)."
    )
    model: str | None = Field(default=None, description="Model name sent to the endpoint.")
    api_key_env: str | None = Field(
        default=None,
        description="Name of the environment variable holding the API key (the key itself is never stored).",
    )
    wire_format: WireFormat = Field(default=DEFAULT_WIRE_FORMAT, description=wire_format_setting_description())
    timeout_seconds: float = Field(
        default=30.0,
        gt=0,
        le=3600,
        description=(
            "The idle limit: the longest the endpoint may stay silent, waiting for its answer to start included, "
            "in seconds (each attempt)."
        ),
    )
    deadline_seconds: float = Field(
        default=120.0,
        gt=0,
        le=86_400,
        description="The deadline for a whole summary call, retries and their waits included, in seconds.",
    )
    retries: int = Field(default=2, ge=0, le=10, description="Retries on transient failures (429, 5xx, network).")

    @model_validator(mode="after")
    def _endpoint_needs_url_and_model(self) -> SummarizerSettings:
        if self.mode == "endpoint":
            missing = [name for name, value in (("url", self.url), ("model", self.model)) if not value]
            if missing:
                raise ValueError(f'mode "endpoint" needs {" and ".join(missing)}')
        return self


class BudgetSettings(_Model):
    context_windows: dict[str, Annotated[int, Field(gt=0)]] = Field(
        default_factory=dict,
        description=(
            'Context window in tokens per model, keyed "provider/modelId" or "modelId"; beats models.json, '
            "Pi's model catalog and pi-context's table (e.g. a local model or a proxy with a smaller limit)."
        ),
    )
    default_context_window: int | None = Field(
        default=None,
        gt=0,
        description="Window for a model no source knows (unset: 128000, Pi's default for a custom model).",
    )

    def window_overrides(self) -> WindowOverrides:
        """These windows as the budget takes them (``contextWindows``, ``defaultContextWindow``)."""
        return WindowOverrides(dict(self.context_windows), self.default_context_window)


class PiAgentSettings(_Model):
    command: str | None = Field(
        default=None,
        description=(
            "The command line that starts Pi for the chat, e.g. `node /opt/pi/dist/bundle/cli.js` (split like a "
            "shell would). Unset: `pi` on the PATH, else the usual npm, nvm and Volta folders."
        ),
    )
    reattach_grace_seconds: float = Field(
        default=90.0,
        ge=0,
        le=3600,
        description=(
            "When the window reloads or closes while Pi works, Pi finishes the turn; then it waits this many "
            "seconds for a window to take the chat up before it ends. 0: it ends as soon as the turn is over."
        ),
    )
    detached_turn_limit_seconds: float = Field(
        default=1800.0,
        gt=0,
        le=86400,
        description=(
            "The longest a turn goes on with no window attached; then Pi aborts it (the session keeps what was "
            "done) and the grace period begins."
        ),
    )


class CheckSettings(_Model):
    exclude: list[str] = Field(
        default_factory=list,
        description=(
            "Paths the check leaves out: a glob without a slash matches a file or folder name at any depth "
            '("fixtures", "*.draft.md"), one with a slash the path relative to the checked folder '
            '("packages/*/test/fixtures"). The command line adds --exclude GLOB.'
        ),
    )
    fixture_folders: list[str] = Field(
        default_factory=lambda: list(DEFAULT_FIXTURE_FOLDERS),
        description=(
            "Folder names that hold test fixtures: a finding in a file below one is kept, lowered to info at most "
            "and marked [test fixture (folder): ...], so fixtures broken on purpose do not fail the check. "
            "[] turns it off."
        ),
    )

    def scope(self) -> CheckScope:
        """These settings as the check's scope (flags add their patterns with ``CheckScope``'s fields)."""
        return CheckScope(tuple(self.exclude), tuple(self.fixture_folders))


class PiContextSettings(_Model):
    """Everything pi-context itself can be told; all of it goes beyond Pi."""

    rule_profile: ProfileId = Field(default=DEFAULT_PROFILE, description=rule_profile_setting_description())
    tokens: TokenSettings = Field(default_factory=TokenSettings)
    summarizer: SummarizerSettings = Field(default_factory=SummarizerSettings)
    agent_dir: str | None = Field(
        default=None, description="Pi's agent dir; default $PI_CODING_AGENT_DIR, else ~/.pi/agent."
    )
    trust: TrustOverride = Field(
        default="pi",
        description=(
            '"pi": decide project trust as Pi does (trust.json, defaultProjectTrust); "trusted" / "untrusted": '
            "force it, like Pi's --approve / --no-approve."
        ),
    )
    debounce_ms: int = Field(
        default=300, ge=0, le=60_000, description="Longest wait before re-checking in a burst of edits (one: at once)."
    )
    limits: Thresholds = Field(default_factory=Thresholds)
    check: CheckSettings = Field(default_factory=CheckSettings)
    budget: BudgetSettings = Field(default_factory=BudgetSettings)
    pi: PiAgentSettings = Field(default_factory=PiAgentSettings)

    def check_options(self) -> CheckOptions:
        """What the checks take from these settings (profile, limits, scope), as plain values."""
        return CheckOptions(self.rule_profile, self.limits, self.check.scope())

    @property
    def trust_override(self) -> bool | None:
        """The trust override in Pi's terms (``--approve`` is True), None to let Pi's rules decide."""
        return {"pi": None, "trusted": True, "untrusted": False}[self.trust]


def parse_pi_context_settings(
    data: Any, source: str = "settings", text: str | None = None
) -> tuple[PiContextSettings, list[SettingsProblem]]:
    """Validate a settings object; bad values are reported and replaced by defaults.

    ``source`` names where the object came from (a file path, ``piContext`` for editor settings)
    and ``text`` (the file's JSON text, when there is one) gives problems their line.
    """
    if data is None:
        return PiContextSettings(), []
    if isinstance(data, dict):
        data = {key: value for key, value in data.items() if key not in CLIENT_ONLY_KEYS}
    return validate_leniently(PiContextSettings, data, source, text)


def load_pi_context_settings_file(path: str) -> tuple[PiContextSettings, list[SettingsProblem]]:
    """Read a JSON settings file (``pi-context --settings <file>``); never raises."""
    result = fsread.read_text(path)
    if result.text is None:
        return PiContextSettings(), [SettingsProblem(path, (), f"cannot read settings file: {result.error}")]
    loaded = parse_json_text(result.text, path)
    if loaded.problem is not None:
        return PiContextSettings(), [loaded.problem]
    return parse_pi_context_settings(loaded.value, path, result.text)
