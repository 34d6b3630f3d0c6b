// A readable view of one AsyncAPI 3 document this server publishes (?doc=voice-events,
// ?doc=contact-center-events, ?doc=voice-webhooks): its channel, operations and every message with
// its headers and payload schema, $refs resolved. Built with DOM calls and textContent only (the CSP allows no inline script).
(async () => {
  const main = document.getElementById('asyncapi');
  const toc = document.getElementById('toc');
  const wanted = new URLSearchParams(location.search).get('doc') ?? 'voice-events';
  const ACTIONS = {
    send: 'Switchboard sends these frames to the client.',
    receive: 'The client sends these frames to Switchboard.',
  };

  try {
    const { documents } = await getJson('/openapi');
    documentLinks(documents);
    const entry = documents.find((d) => d.name === wanted && d.kind === 'asyncapi');
    if (!entry) return fail(`No event document named "${wanted}".`);
    const doc = await getJson(entry.href);
    document.title = `${doc.info?.title ?? wanted} (AsyncAPI)`;
    main.replaceChildren(...render(doc));
    toc.replaceChildren(...contents(doc));
    main.setAttribute('aria-busy', 'false');
    if (location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
  } catch (err) {
    fail(`Could not load the document: ${err.message}`);
  }

  function fail(message) {
    main.replaceChildren(el('p', { className: 'events-error', role: 'alert' }, message));
    main.setAttribute('aria-busy', 'false');
  }

  async function getJson(url) {
    const res = await fetch(url, { headers: { Accept: 'application/json' } });
    if (!res.ok) throw new Error(`${url} answered ${res.status}`);
    return res.json();
  }

  /** Every document, OpenAPI ones in Swagger UI and event ones here. */
  function documentLinks(documents) {
    const nav = document.getElementById('documents');
    for (const d of documents) {
      const href =
        d.kind === 'asyncapi'
          ? `/docs/events.html?doc=${encodeURIComponent(d.name)}`
          : `/docs/?doc=${encodeURIComponent(d.name)}`;
      const a = el('a', { href }, `${d.title} (${d.kind === 'asyncapi' ? 'AsyncAPI' : 'OpenAPI'})`);
      a.dataset.kind = d.kind;
      if (d.name === wanted && d.kind === 'asyncapi') a.setAttribute('aria-current', 'page');
      nav.append(a);
    }
    nav.append(el('a', { href: `/openapi/${encodeURIComponent(wanted)}.json` }, 'Raw JSON'));
  }

  // ---- the document ------------------------------------------------------------------------------

  function render(doc) {
    const out = [
      el('h2', { className: 'events-title' }, doc.info?.title ?? wanted, ' ', badge(`v${doc.info?.version}`)),
      el('p', { className: 'events-meta' }, `AsyncAPI ${doc.asyncapi}`),
      prose(doc.info?.description),
      ...servers(doc),
    ];
    for (const [id, channel] of Object.entries(doc.channels ?? {})) {
      out.push(
        el('section', { className: 'events-channel', id: `channel-${id}` }, [
          el('h2', {}, 'Channel ', el('code', {}, channel.address ?? id)),
          prose(channel.description),
          ...(channel.bindings?.ws?.query
            ? [el('h3', {}, 'Query of the upgrade'), schemaView(doc, channel.bindings.ws.query, new Set())]
            : []),
        ]),
      );
    }
    out.push(el('h2', {}, 'Operations'));
    for (const [id, op] of Object.entries(doc.operations ?? {})) out.push(operation(doc, id, op));
    out.push(el('h2', {}, 'Messages'));
    for (const m of messages(doc)) out.push(message(doc, m));
    return out;
  }

  function servers(doc) {
    const out = [];
    const list = Object.entries(doc.servers ?? {});
    if (list.length) {
      out.push(el('h3', {}, 'Servers'));
      out.push(
        el(
          'ul',
          {},
          list.map(([name, s]) =>
            el(
              'li',
              {},
              el('code', {}, `${s.protocol}://${s.host}`),
              ` (${name}) `,
              prose(s.description, 'span'),
            ),
          ),
        ),
      );
    }
    const schemes = Object.entries(doc.components?.securitySchemes ?? {});
    if (schemes.length) {
      out.push(el('h3', {}, 'Security'));
      out.push(
        el(
          'ul',
          {},
          schemes.map(([name, s]) =>
            el(
              'li',
              {},
              el('code', {}, name),
              `: ${[s.type, s.scheme].filter(Boolean).join(' ')}. `,
              prose(s.description, 'span'),
            ),
          ),
        ),
      );
    }
    return out;
  }

  function operation(doc, id, op) {
    return el('section', { className: 'events-operation', id: `operation-${id}` }, [
      el('h3', {}, op.title ?? id, ' ', badge(op.action)),
      el(
        'p',
        {},
        op.bindings?.http
          ? `Switchboard sends these as HTTP ${op.bindings.http.method} requests.`
          : (ACTIONS[op.action] ?? ''),
      ),
      prose(op.summary),
      prose(op.description),
      el(
        'ul',
        {},
        (op.messages ?? []).map((ref) => {
          const name = lastSegment(ref.$ref);
          const m = resolve(doc, ref);
          return el('li', {}, el('a', { href: `#message-${name}` }, name), ` — ${m?.summary ?? ''}`);
        }),
      ),
    ]);
  }

  /** The channel's messages in document order, each with the operations that carry it. */
  function messages(doc) {
    const out = [];
    for (const channel of Object.values(doc.channels ?? {})) {
      for (const [name, ref] of Object.entries(channel.messages ?? {})) {
        const actions = Object.values(doc.operations ?? {})
          .filter((op) => (op.messages ?? []).some((r) => lastSegment(r.$ref) === name))
          .map((op) => op.action);
        out.push({ name, actions, message: resolve(doc, ref) ?? {} });
      }
    }
    return out;
  }

  function message(doc, { name, actions, message: m }) {
    const examples = m.examples ?? [];
    return el('section', { className: 'events-message', id: `message-${name}` }, [
      el(
        'h3',
        {},
        el('code', {}, name),
        m.title && m.title !== name ? ` ${m.title}` : '',
        ' ',
        ...actions.map(badge),
      ),
      prose(m.summary, 'p', 'events-summary'),
      prose(m.description),
      el(
        'p',
        { className: 'events-meta' },
        `Content type: ${m.contentType ?? doc.defaultContentType ?? 'unknown'}`,
      ),
      ...(m.headers ? [el('h4', {}, 'Headers'), schemaView(doc, m.headers, new Set())] : []),
      el('h4', {}, 'Payload'),
      schemaView(doc, m.payload ?? {}, new Set()),
      ...(examples.length
        ? [
            el('h4', {}, examples.length > 1 ? 'Examples' : 'Example'),
            ...examples.map((x) =>
              el('figure', { className: 'events-example' }, [
                x.name ? el('figcaption', {}, x.name) : null,
                x.headers ? el('pre', {}, JSON.stringify(x.headers, null, 2)) : null,
                el('pre', {}, JSON.stringify(x.payload, null, 2)),
              ]),
            ),
          ]
        : []),
    ]);
  }

  function contents(doc) {
    const out = [el('h2', {}, 'Contents')];
    for (const [id, op] of Object.entries(doc.operations ?? {})) {
      out.push(el('h3', {}, el('a', { href: `#operation-${id}` }, op.title ?? id)));
      out.push(
        el(
          'ul',
          {},
          (op.messages ?? []).map((ref) => {
            const name = lastSegment(ref.$ref);
            return el('li', {}, el('a', { href: `#message-${name}` }, name));
          }),
        ),
      );
    }
    return out;
  }

  // ---- schemas ---------------------------------------------------------------------------------

  /** A schema as a table of fields (objects) or a line naming its type (anything else). */
  function schemaView(doc, raw, seen) {
    const { schema, name } = deref(doc, raw);
    const caption = name
      ? el('p', { className: 'events-schema-name' }, 'Schema ', el('code', {}, name))
      : null;
    // A schema that contains itself is named again, not expanded again.
    if (name && seen.has(name)) return el('div', { className: 'events-schema' }, caption);
    const inner = name ? new Set([...seen, name]) : seen;
    const body = isObject(schema)
      ? [
          prose(schema.description),
          fieldTable(doc, schema, inner),
          schema.additionalProperties === false
            ? el('p', { className: 'events-meta' }, 'No other fields.')
            : null,
        ]
      : [
          el('p', {}, el('code', {}, typeLabel(doc, schema)), ' ', prose(schema.description, 'span')),
          constraintList(schema),
        ];
    return el('div', { className: 'events-schema' }, caption, body);
  }

  /** One row per field; an object field (or array of objects) gets a full-width row for its fields. */
  function fieldTable(doc, schema, seen) {
    const required = new Set(schema.required ?? []);
    const rows = Object.entries(schema.properties ?? {}).flatMap(([field, raw]) => {
      const { schema: s, name } = deref(doc, raw);
      const type = typeLabel(doc, raw);
      const row = el('tr', {}, [
        el('td', {}, el('code', {}, field)),
        el(
          'td',
          {},
          el('code', {}, type),
          name && name !== type ? el('div', { className: 'events-meta' }, name) : null,
        ),
        el('td', {}, required.has(field) ? 'required' : 'optional'),
        el('td', {}, prose(s.description), constraintList(s)),
      ]);
      const nested = nestedObject(doc, raw);
      if (!nested) return [row];
      const detail = el('td', { colspan: '4' }, schemaView(doc, nested, seen));
      return [row, el('tr', { className: 'events-nested' }, detail)];
    });
    return el('table', { className: 'events-fields' }, [
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          ['Field', 'Type', '', 'Description'].map((h) => el('th', {}, h)),
        ),
      ),
      el('tbody', {}, rows),
    ]);
  }

  /** The object schema of a field (itself, or its array's items), to show as a sub-table. */
  function nestedObject(doc, raw) {
    const { schema: s } = deref(doc, raw);
    if (isObject(s)) return raw;
    if (s.type === 'array' && s.items && isObject(deref(doc, s.items).schema)) return s.items;
    return null;
  }

  function typeLabel(doc, raw) {
    const { schema: s, name } = deref(doc, raw);
    if ('const' in s) return JSON.stringify(s.const);
    if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
    const alternatives = s.anyOf ?? s.oneOf;
    if (Array.isArray(alternatives)) return alternatives.map((a) => typeLabel(doc, a)).join(' | ');
    if (Array.isArray(s.allOf)) return s.allOf.map((a) => typeLabel(doc, a)).join(' & ');
    const type = Array.isArray(s.type) ? s.type.join(' | ') : s.type;
    if (type === 'array') return `array of ${s.items ? typeLabel(doc, s.items) : 'any'}`;
    if (type === 'object' || isObject(s)) return name ?? 'object';
    if (!type) return 'any JSON value';
    return s.format ? `${type} (${s.format})` : type;
  }

  function constraintList(s) {
    const items = [];
    if (s.pattern) items.push(['pattern ', el('code', {}, s.pattern)]);
    if (s.minimum !== undefined) items.push([`minimum ${s.minimum}`]);
    if (s.maximum !== undefined) items.push([`maximum ${s.maximum}`]);
    if (s.minLength !== undefined) items.push([`at least ${s.minLength} characters`]);
    if (s.maxLength !== undefined) items.push([`at most ${s.maxLength} characters`]);
    if (s.minItems !== undefined) items.push([`at least ${s.minItems} items`]);
    if (s.maxItems !== undefined) items.push([`at most ${s.maxItems} items`]);
    if (!items.length) return null;
    return el(
      'ul',
      { className: 'events-constraints' },
      items.map((parts) => el('li', {}, ...parts)),
    );
  }

  function isObject(s) {
    return s.type === 'object' || (s.properties !== undefined && s.type === undefined);
  }

  /** Follows $refs to the schema itself, keeping the last component name seen. */
  function deref(doc, raw) {
    let schema = raw ?? {};
    let name;
    for (let i = 0; i < 16 && typeof schema.$ref === 'string'; i++) {
      name = lastSegment(schema.$ref);
      schema = resolve(doc, schema) ?? {};
    }
    return { schema, name };
  }

  /** The target of a local `$ref` (the value itself when it is none). */
  function resolve(doc, value) {
    let v = value;
    for (let i = 0; i < 16 && v && typeof v.$ref === 'string'; i++) {
      if (!v.$ref.startsWith('#/')) return undefined;
      v = v.$ref
        .slice(2)
        .split('/')
        .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce((node, key) => node?.[key], doc);
    }
    return v;
  }

  function lastSegment(ref) {
    return (ref ?? '').split('/').pop().replace(/~1/g, '/').replace(/~0/g, '~');
  }

  // ---- DOM helpers -----------------------------------------------------------------------------

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(props ?? {})) {
      if (k === 'className' || k === 'id' || k === 'href') node[k] = v;
      else node.setAttribute(k, v);
    }
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined || c === false || c === '') continue;
      node.append(c instanceof Node ? c : String(c));
    }
    return node;
  }

  function badge(text) {
    return el('span', { className: `events-badge events-badge-${text}` }, text);
  }

  /** Text with `code` spans, as the documents write them; nothing for no text. */
  function prose(text, tag = 'p', className = '') {
    if (!text) return null;
    const parts = String(text)
      .split('`')
      .map((part, i) => (i % 2 ? el('code', {}, part) : part));
    return el(tag, className ? { className } : {}, parts);
  }
})();
