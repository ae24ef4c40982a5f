// A tiny Pi extension for the client tests: it writes one stderr line when loaded and registers
// /probe-confirm, which asks the RPC client for a confirmation (an extension_ui_request) and
// reports the answer with a notify (a fire-and-forget extension_ui_request).
export default function (pi: any) {
	console.error("chat-probe: loaded");
	pi.registerCommand("probe-confirm", {
		description: "Ask the client to confirm",
		handler: async (_args: string, ctx: any) => {
			const ok = await ctx.ui.confirm("Really?", "The probe asks");
			ctx.ui.notify(ok ? "confirmed" : "declined", "info");
		},
	});
}
