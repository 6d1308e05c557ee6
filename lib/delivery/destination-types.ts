/**
 * Destination types behind one interface (docs/destination-types.md). A destination type is one module
 * that declares its name, the zod schemas of its `config` and credentials, how they are validated, how
 * credentials are obfuscated on read, how its target is described, and what one delivery does. A product
 * (the gateway, the outbound service) keeps one {@link DestinationTypeRegistry} and registers its type
 * modules in one list file; its API and its delivery look types up there instead of branching on names.
 *
 * This file is part of the delivery engine: it knows no product. What differs between products (what a
 * delivery carries, what an attempt's outcome is, how a validation problem looks) is the
 * {@link DestinationTypeShapes} parameter each product fixes once.
 */
import type { z } from "zod";

/** The product-specific shapes of a product's destination types (each product fixes these once). */
type DestinationTypeShapes = {
  /** `config` (and credentials) as the API received them, before validation. */
  input: unknown;
  /** What validation adds to `input`: the caller, the values stored so far. */
  validateContext: unknown;
  /** One validation problem, as the product's error body reports it. */
  issue: unknown;
  /** The validated, normalised values, as they are stored. */
  valid: unknown;
  /** Stored `config`. */
  config: unknown;
  /** Stored credentials, decrypted. */
  credentials: unknown;
  /** What a target description needs beside `config` (e.g. the path and query of a request). */
  targetContext: unknown;
  /** The target description the product's API shows. */
  target: unknown;
  /** Everything one delivery needs (the event, decrypted config and credentials, callbacks). */
  delivery: unknown;
  /** What one delivery returns: the outcome the product records as an attempt. */
  outcome: unknown;
};

/** One destination type of a product (docs/destination-types.md "The interface"). */
export interface DestinationType<S extends DestinationTypeShapes> {
  /** The type's name as the API spells it (`webhook`, `HTTP`); unique within its product. */
  readonly type: string;
  /** The zod schemas of the type's `config` and credentials objects as the API accepts them. */
  readonly schema: { readonly config: z.ZodType; readonly credentials: z.ZodType };
  /**
   * Validates and normalises `input`: pushes every problem to `issues` (in the order the product
   * reports them) and returns the values to store, meaningless when a problem was pushed. Throws only
   * on infrastructure errors (a database query). Synchronous or not: callers await it.
   */
  validate(input: S["input"], issues: S["issue"][], context: S["validateContext"]): S["valid"] | Promise<S["valid"]>;
  /** Stored credentials as an API read shows them (sensitive values masked); `now` in ms since the epoch. */
  obfuscate(credentials: S["credentials"], now: number): S["credentials"];
  /** What the API shows as the destination's target. */
  target(config: S["config"], context: S["targetContext"]): S["target"];
  /**
   * Whether the engine's receiver-driven limits apply to this type's deliveries (a pause for
   * `Retry-After`, the adaptive pace, the circuit breaker: lib/delivery/destination-state.ts,
   * docs/pipeline.md "Receiver-driven limits"). Default true; false for a type with no receiver to
   * protect (the gateway's `CLI`, whose answers come from a developer's machine).
   */
  readonly receiverLimits?: boolean;
  /** Makes one delivery. Never throws for a failed delivery: a failure is an outcome. */
  deliver(delivery: S["delivery"]): Promise<S["outcome"]>;
}

/** Thrown by {@link DestinationTypeRegistry.get} for a name no module registered. */
export class UnknownDestinationTypeError extends Error {
  constructor(
    readonly product: string,
    readonly type: string,
  ) {
    super(`${product}: ${type} is not a registered destination type`);
    this.name = "UnknownDestinationTypeError";
  }
}

/** Thrown by {@link DestinationTypeRegistry.register} for a name already registered. */
export class DuplicateDestinationTypeError extends Error {
  constructor(
    readonly product: string,
    readonly type: string,
  ) {
    super(`${product}: destination type ${type} is registered twice`);
    this.name = "DuplicateDestinationTypeError";
  }
}

/**
 * A product's destination types, in registration order (the order the product lists them in its API).
 * `product` names the product in error messages.
 */
export class DestinationTypeRegistry<T extends { readonly type: string }> {
  readonly #types = new Map<string, T>();

  constructor(readonly product: string) {}

  /** Adds `types`, in order. Throws {@link DuplicateDestinationTypeError} for a name already registered (nothing of that call is added). */
  register(...types: T[]): this {
    const names = new Set<string>();
    for (const t of types) {
      if (this.#types.has(t.type) || names.has(t.type)) throw new DuplicateDestinationTypeError(this.product, t.type);
      names.add(t.type);
    }
    for (const t of types) this.#types.set(t.type, t);
    return this;
  }

  /** The type named `type`, or undefined (a name from the API, or a stored row of a type since removed). */
  find(type: string): T | undefined {
    return this.#types.get(type);
  }

  /** The type named `type`. Throws {@link UnknownDestinationTypeError} when none is registered. */
  get(type: string): T {
    const t = this.#types.get(type);
    if (!t) throw new UnknownDestinationTypeError(this.product, type);
    return t;
  }

  /** Every registered type, in registration order. */
  list(): T[] {
    return [...this.#types.values()];
  }

  /** The registered names, in registration order. */
  names(): string[] {
    return [...this.#types.keys()];
  }
}
