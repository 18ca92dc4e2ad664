/**
 * @module dashboard/client/login — the login page: the form posts JSON so a wrong token is
 * shown inline (without JavaScript it still works as a plain form post).
 */
import { must } from "./dom.ts";
import { BASE } from "./state.ts";

export function initLogin(form: HTMLFormElement): void {
  const msg = must("login-msg");
  const btn = form.querySelector("button");
  const token = form.elements.namedItem("token") as HTMLInputElement;
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (btn) btn.disabled = true;
    msg.hidden = true;
    function show(text: string): void {
      msg.textContent = text;
      msg.hidden = false;
      if (btn) btn.disabled = false;
      token.select();
    }
    fetch(`${BASE}/login`, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ token: token.value }),
    }).then((r) => {
      if (r.ok) {
        location.reload();
        return;
      }
      return r.json().catch(() => null).then((d: { error?: { message: string } } | null) => {
        show(
          r.status === 401
            ? "Wrong token or key."
            : d && d.error
            ? d.error.message
            : `Login failed: HTTP ${r.status}`,
        );
      });
    }, (e: Error) => show(`Cannot reach the server: ${e.message}`));
  });
}
