"use client";

import { javascript } from "@codemirror/lang-javascript";
import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { Compartment, EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { tags as t } from "@lezer/highlight";
import { basicSetup } from "codemirror";
import { useEffect, useRef } from "react";
import { cx } from "@/components/ui/cx";

type Props = {
  /** The code; the editor follows changes made from outside (another transformation chosen). */
  value: string;
  onChange: (value: string) => void;
  /** Accessible name of the editing area (a `<label>` cannot name a contenteditable element). */
  label: string;
  id?: string;
  "aria-describedby"?: string;
  "aria-invalid"?: boolean;
  "data-testid"?: string;
  /** Shown, selectable and copyable, but not editable (fixed when the editor is created). */
  readOnly?: boolean;
  /** Visible height in lines (it grows no further; the editor scrolls). */
  rows?: number;
  className?: string;
};

/** The editor inside the kit: font, no outline of its own (the ring shows focus). */
const kitTheme = EditorView.theme({
  "&": { fontSize: "13px", borderRadius: "0.375rem" },
  "&.cm-focused": { outline: "none" },
  ".cm-scroller": { fontFamily: "var(--font-mono, ui-monospace, SFMono-Regular, Menlo, monospace)", lineHeight: "1.25rem" },
  ".cm-content": { caretColor: "currentColor" },
});

/** Token colours by scheme, each at least 4.5:1 on the editor's background (white / zinc-900), as axe checks. */
const palette = {
  light: {
    text: "#18181b",
    keyword: "#6d28d9",
    string: "#047857",
    number: "#b45309",
    comment: "#52525b",
    name: "#1d4ed8",
    atom: "#be123c",
    type: "#0e7490",
    punct: "#3f3f46",
  },
  dark: {
    text: "#f4f4f5",
    keyword: "#c4b5fd",
    string: "#6ee7b7",
    number: "#fcd34d",
    comment: "#a1a1aa",
    name: "#93c5fd",
    atom: "#fda4af",
    type: "#67e8f9",
    punct: "#d4d4d8",
  },
};

/** The look of one colour scheme: highlighting, gutter, active line and selection. */
function schemeExtensions(scheme: "light" | "dark") {
  const c = palette[scheme];
  const dark = scheme === "dark";
  const style = HighlightStyle.define([
    { tag: [t.keyword, t.controlKeyword, t.operatorKeyword, t.definitionKeyword, t.moduleKeyword], color: c.keyword },
    { tag: [t.string, t.special(t.string), t.regexp], color: c.string },
    { tag: [t.number], color: c.number },
    { tag: [t.comment, t.lineComment, t.blockComment], color: c.comment, fontStyle: "italic" },
    { tag: [t.function(t.variableName), t.function(t.propertyName), t.propertyName, t.definition(t.propertyName)], color: c.name },
    { tag: [t.bool, t.null, t.atom, t.self], color: c.atom },
    { tag: [t.typeName, t.className, t.namespace], color: c.type },
    { tag: [t.punctuation, t.bracket, t.operator, t.separator], color: c.punct },
    { tag: [t.variableName, t.definition(t.variableName), t.name], color: c.text },
    { tag: t.invalid, color: c.atom, textDecoration: "underline" },
  ]);
  const theme = EditorView.theme(
    {
      "&": { color: c.text, backgroundColor: dark ? "#18181b" : "#ffffff" },
      ".cm-gutters": {
        backgroundColor: dark ? "#18181b" : "#fafafa",
        color: dark ? "#a1a1aa" : "#52525b",
        borderRight: `1px solid ${dark ? "#3f3f46" : "#e4e4e7"}`,
      },
      ".cm-activeLine": { backgroundColor: dark ? "#ffffff0a" : "#4f46e50a" },
      ".cm-activeLineGutter": { backgroundColor: dark ? "#27272a" : "#f4f4f5", color: dark ? "#f4f4f5" : "#18181b" },
      "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": { backgroundColor: dark ? "#4338ca80" : "#c7d2fe" },
      ".cm-cursor": { borderLeftColor: c.text },
      ".cm-matchingBracket": { backgroundColor: dark ? "#3f3f46" : "#e0e7ff", outline: "none" },
    },
    { dark },
  );
  return [theme, syntaxHighlighting(style)];
}
const LIGHT = schemeExtensions("light");
const DARK = schemeExtensions("dark");

const darkQuery = () => (typeof window !== "undefined" && window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null);

/**
 * A JavaScript code editor in the kit's style (CodeMirror 6: syntax highlighting, line numbers, bracket
 * matching, undo history, search), light or dark with the system's colour scheme. Tab indents; Escape
 * then Tab leaves the editor, as CodeMirror documents for keyboard users. Its text is never rendered as
 * markup. Used by the dashboard's transformation editor and the portal's destination transformation.
 */
export function CodeEditor({ value, onChange, label, id, rows = 12, readOnly = false, className, ...aria }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  useEffect(() => {
    changed.current = onChange;
  }, [onChange]);

  useEffect(() => {
    const theme = new Compartment();
    const query = darkQuery();
    const content: Record<string, string> = { "aria-label": label, "aria-multiline": "true", spellcheck: "false", autocapitalize: "off", autocorrect: "off" };
    if (id) content.id = id;
    if (aria["aria-describedby"]) content["aria-describedby"] = aria["aria-describedby"];
    if (aria["aria-invalid"]) content["aria-invalid"] = "true";
    if (aria["data-testid"]) content["data-testid"] = aria["data-testid"];
    if (readOnly) content["aria-readonly"] = "true";
    const v = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          basicSetup,
          javascript(),
          kitTheme,
          // Long lines wrap: nothing scrolls sideways at a phone's width.
          EditorView.lineWrapping,
          EditorState.readOnly.of(readOnly),
          EditorView.theme({ ".cm-scroller": { minHeight: `${rows * 20 + 8}px`, maxHeight: `${rows * 40}px` } }),
          theme.of(query?.matches ? DARK : LIGHT),
          EditorView.contentAttributes.of(content),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) changed.current(u.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = v;
    const follow = () => v.dispatch({ effects: theme.reconfigure(query?.matches ? DARK : LIGHT) });
    query?.addEventListener("change", follow);
    return () => {
      query?.removeEventListener("change", follow);
      v.destroy();
      view.current = null;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the editor is created once; value changes from outside are applied below, the rest is fixed
  }, []);

  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value) v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [value]);

  return (
    <div
      ref={host}
      className={cx(
        "min-w-0 overflow-hidden rounded-md ring-1 ring-zinc-300 focus-within:ring-2 focus-within:ring-indigo-600 dark:ring-zinc-700 dark:focus-within:ring-indigo-400",
        className,
      )}
    />
  );
}
