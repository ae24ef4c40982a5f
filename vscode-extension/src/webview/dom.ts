/**
 * A tiny element builder. Text always goes through `textContent` and attributes through
 * `setAttribute`, never through `innerHTML`, so text from files and sessions cannot inject markup.
 * Styles are set through the CSSOM (`el.style.x`), which the strict CSP allows (inline style
 * attributes are not).
 */

type Child = Node | string | null | undefined | false;

export interface Props {
  class?: string;
  id?: string;
  attrs?: Record<string, string | undefined>;
  style?: Partial<Record<'left' | 'width', string>>;
  on?: Partial<Record<'click' | 'toggle' | 'keydown', (e: Event) => void>>;
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props?.class) {
    el.className = props.class;
  }
  if (props?.id) {
    el.id = props.id;
  }
  for (const [name, value] of Object.entries(props?.attrs ?? {})) {
    if (value !== undefined) {
      el.setAttribute(name, value);
    }
  }
  for (const [name, value] of Object.entries(props?.style ?? {})) {
    if (value !== undefined) {
      el.style.setProperty(name, value);
    }
  }
  for (const [name, handler] of Object.entries(props?.on ?? {})) {
    if (handler) {
      el.addEventListener(name, handler);
    }
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) {
      continue;
    }
    el.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return el;
}

export function button(label: string, onClick: () => void, props: Props = {}): HTMLButtonElement {
  return h('button', { ...props, attrs: { type: 'button', ...(props.attrs ?? {}) }, on: { click: onClick } }, label);
}
