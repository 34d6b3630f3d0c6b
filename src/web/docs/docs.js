/* global SwaggerUIBundle, SwaggerUIStandalonePreset -- loaded by index.html from /docs/swagger-ui/ */
// The API documents page: Swagger UI over every OpenAPI document this server publishes, with
// links to the raw OpenAPI and AsyncAPI JSON.
(async () => {
  const nav = document.getElementById('documents');
  const { documents } = await (await fetch('/openapi')).json();
  for (const d of documents) {
    const a = document.createElement('a');
    a.href = d.kind === 'asyncapi' ? `/docs/events.html?doc=${encodeURIComponent(d.name)}` : d.href;
    a.textContent = `${d.title} (${d.kind === 'asyncapi' ? 'AsyncAPI' : 'OpenAPI'})`;
    a.dataset.kind = d.kind;
    nav.append(a);
  }
  const urls = documents.filter((d) => d.kind === 'openapi').map((d) => ({ url: d.href, name: d.title }));
  const wanted = new URLSearchParams(location.search).get('doc');
  const primary = urls.find((u) => u.url === `/openapi/${wanted}.json`)?.name ?? urls[0]?.name;
  window.ui = SwaggerUIBundle({
    urls,
    'urls.primaryName': primary,
    dom_id: '#swagger-ui',
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
    deepLinking: true,
    plugins: [textLogo],
  });
})();

// The stock top-bar logo is an SVG with an inline <style>, which the pages' CSP (style-src 'self')
// blocks; a text logo keeps the policy strict.
function textLogo(system) {
  return {
    components: { Logo: () => system.React.createElement('span', { className: 'docs-logo' }, 'Switchboard') },
  };
}
