// @ts-check
// Installable: the service worker (/sw.js, the whole site its scope) is registered once the page
// has loaded, so it never competes with the table's first frames. A browser without one, or a
// page not served over http(s) from a secure origin, simply goes without.

export function registerWorker() {
  if (!("serviceWorker" in navigator)) return;
  const register = () => navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
  if (document.readyState === "complete") register();
  else addEventListener("load", register, { once: true });
}
