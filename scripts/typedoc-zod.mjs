// A local TypeDoc plugin (typedoc.json "plugin") for the zod schema/type pairs
// of src/schemas: `export const Case = z.strictObject({...})` beside
// `export type Case = z.infer<typeof Case>`.
//
// Without it TypeDoc documents the type as `z.infer<typeof Case>`, the schema
// as `ZodObject<{ ...every field, as zod types... }>`, and every method that
// returns a Case as an anonymous copy of its fields: TypeScript keeps no alias
// name for a z.infer result. With it:
// - the type alias shows its fields, each with the doc comment written on the
//   schema's property;
// - the schema shows as `ZodObject<Case>` (its shape, linked);
// - an anonymous object (or zod shape, or enum object) with exactly the fields
//   of one such type becomes a link to it, wherever it appears;
// - a pair needs one comment, on either half; the other half gets a copy.
//
// The same idea as typedoc-plugin-zod (not installed: a few dozen lines do).
import {
  Comment,
  CommentTag,
  Converter,
  DeclarationReflection,
  ParameterReflection,
  ReferenceType,
  ReflectionKind,
  ReflectionType,
  SignatureReflection,
  TypeParameterReflection,
  TypeScript as ts,
} from "typedoc";

const ZOD_INFER = new Set(["z.infer", "z.output", "z.input", "z.TypeOf"]);

/** @param {import("typedoc").Application} app */
export function load(app) {
  /** Type aliases written as z.infer/z.output/z.input<typeof schema>. */
  const inferred = new Set();

  // The main module's exports, grouped by the API resource (or concern) of
  // the file that declares them instead of by kind: one page section per
  // resource rather than ~300 names in one list. A zod schema goes to "Zod
  // schemas", so that its interface alone stands in its resource's group.
  app.converter.on(Converter.EVENT_CREATE_DECLARATION, (context, reflection) => {
    if (
      reflection.parent?.name !== "medrecords" ||
      !reflection.parent.kindOf(ReflectionKind.Module)
    )
      return;
    const file = context
      .getSymbolFromReflection(reflection)
      ?.getDeclarations()?.[0]
      ?.getSourceFile()
      .fileName.replaceAll("\\", "/");
    const group = file && groupOf(file, reflection);
    if (!group) return;
    reflection.comment ??= new Comment();
    reflection.comment.blockTags = reflection.comment.blockTags.filter((t) => t.tag !== "@group");
    reflection.comment.blockTags.push(new CommentTag("@group", [{ kind: "text", text: group }]));
  });

  app.converter.on(Converter.EVENT_CREATE_DECLARATION, (context, reflection) => {
    if (!reflection.kindOf(ReflectionKind.TypeAlias)) return;
    const declaration = context
      .getSymbolFromReflection(reflection)
      ?.getDeclarations()
      ?.find(ts.isTypeAliasDeclaration);
    const node = declaration?.type;
    if (
      node === undefined ||
      !ts.isTypeReferenceNode(node) ||
      !ZOD_INFER.has(node.typeName.getText()) ||
      !node.typeArguments?.[0] ||
      !ts.isTypeQueryNode(node.typeArguments[0])
    ) {
      return;
    }
    // TypeDoc's own @useDeclaredType: convert the resolved type (the fields),
    // not the written one. The type is converted right after this event.
    reflection.comment ??= new Comment();
    reflection.comment.modifierTags.add("@useDeclaredType");
    inferred.add(reflection);
  });

  // The request and response types are interfaces that extend the ones
  // generated from the schemas (src/types/wire.ts, not an entry point):
  // document them as the public names, with no trace of the generated ones.
  app.converter.on(
    Converter.EVENT_RESOLVE_BEGIN,
    (context) => {
      const project = context.project;
      const publicByName = new Map();
      for (const r of project.getReflectionsByKind(
        ReflectionKind.Interface | ReflectionKind.TypeAlias,
      )) {
        if (!publicByName.has(r.name)) publicByName.set(r.name, r);
      }
      const fromWire = (type) =>
        type?.type === "reference" &&
        !type.reflection &&
        type.symbolId?.fileName.replaceAll("\\", "/").endsWith(WIRE) &&
        publicByName.has(type.name);
      const relink = (type) => {
        if (!type) return type;
        if (fromWire(type)) {
          return ReferenceType.createResolvedReference(
            type.name,
            publicByName.get(type.name),
            project,
          );
        }
        walkType(type, relink);
        return type;
      };
      for (const reflection of Object.values(project.reflections)) {
        if (project.getReflectionById(reflection.id) !== reflection) continue;
        if (reflection instanceof DeclarationReflection) {
          if (reflection.extendedTypes?.some((t) => fromWire(t))) {
            reflection.extendedTypes = reflection.extendedTypes.filter((t) => !fromWire(t));
            if (reflection.extendedTypes.length === 0) delete reflection.extendedTypes;
            for (const child of reflection.children ?? []) delete child.inheritedFrom;
          }
          if (reflection.kindOf(ReflectionKind.Variable))
            schemaOf(project, reflection, publicByName);
        }
        if (
          reflection instanceof DeclarationReflection ||
          reflection instanceof SignatureReflection ||
          reflection instanceof ParameterReflection
        ) {
          reflection.type = relink(reflection.type);
        }
      }
    },
    2100,
  );

  app.converter.on(
    Converter.EVENT_RESOLVE_BEGIN,
    (context) => {
      const project = context.project;
      /** Structural key -> the type alias it stands for; null when ambiguous. */
      const byKey = new Map();
      for (const alias of inferred) {
        const schema = alias.parent?.children?.find(
          (c) => c.name === alias.name && c.kindOf(ReflectionKind.Variable),
        );
        if (schema) shareComment(alias, schema);
        // `export const CaseListParams = ListParams`: the original keeps the key.
        if (schema && isRenamedSchema(context, schema)) continue;
        const key = aliasKey(project, alias);
        if (key === undefined) continue;
        byKey.set(key, byKey.has(key) && byKey.get(key) !== alias ? null : alias);
      }
      const aliases = new Set(inferred);
      inferred.clear();

      const replace = (type, owner) => {
        if (!type) return type;
        if (type instanceof ReflectionType) {
          const alias = byKey.get(literalKey(project, type.declaration));
          if (alias && alias !== owner) {
            project.removeReflection(type.declaration);
            return ReferenceType.createResolvedReference(alias.name, alias, project);
          }
          return type;
        }
        switch (type.type) {
          case "reference":
            if (type.typeArguments)
              type.typeArguments = type.typeArguments.map((t) => replace(t, owner));
            break;
          case "union":
          case "intersection":
            type.types = type.types.map((t) => replace(t, owner));
            break;
          case "array":
          case "optional":
          case "rest":
            type.elementType = replace(type.elementType, owner);
            break;
          case "tuple":
            type.elements = type.elements.map((t) => replace(t, owner));
            break;
          case "namedTupleMember":
            type.element = replace(type.element, owner);
            break;
          case "typeOperator":
            type.target = replace(type.target, owner);
            break;
          case "predicate":
            type.targetType = replace(type.targetType, owner);
            break;
        }
        return type;
      };

      for (const reflection of Object.values(project.reflections)) {
        // Skip what an earlier replacement removed.
        if (project.getReflectionById(reflection.id) !== reflection) continue;
        if (
          reflection instanceof DeclarationReflection ||
          reflection instanceof SignatureReflection ||
          reflection instanceof ParameterReflection ||
          reflection instanceof TypeParameterReflection
        ) {
          const owner = ownerAlias(reflection);
          reflection.type = replace(reflection.type, owner);
          // A field's "default" would be its zod schema (`= IsoDateTime`): not a value.
          if (aliases.has(owner) && reflection instanceof DeclarationReflection) {
            delete reflection.defaultValue;
          }
        }
      }
    },
    // Before TypeDoc's own resolvers (comments, categories, links).
    2000,
  );
}

const WIRE = "/src/types/wire.ts";

/** Groups of the main module, by the file (or folder) that declares an export. */
const GROUPS = [
  [
    /\/src\/(client|core\/(options|api-promise|logging|tracing|reconcile|pagination))\.ts$/,
    "Client",
  ],
  [/\/src\/core\/errors\.ts$/, "Errors"],
  [/\/src\/(resources|schemas)\/cases\.ts$/, "Cases"],
  [/\/src\/(resources|schemas)\/documents\.ts$/, "Documents"],
  [/\/src\/(schemas\/uploads|core\/uploads|core\/file-from-path)\.ts$/, "Uploads"],
  [/\/src\/(resources|schemas)\/retrieval-requests\.ts$/, "Retrieval requests"],
  [/\/src\/(resources|schemas)\/facilities\.ts$/, "Facilities"],
  [/\/src\/(resources|schemas)\/requestors\.ts$/, "Requestors"],
  [/\/src\/((resources|schemas)\/webhooks\.ts|webhooks\/)/, "Webhooks"],
  [/\/src\/(resources\/events|schemas\/events|schemas\/event-list)\.ts$/, "Events"],
  [/\/src\/(poller|stores)\//, "Catch-up poller"],
  [/\/src\/custody\//, "Chain of custody"],
  [/\/src\/schemas\/(common|scopes|email|uri)\.ts$/, "Common"],
];

function groupOf(file, reflection) {
  // A schema constant whose type of the same name is its interface or union.
  if (file.includes("/src/schemas/") && reflection.kindOf(ReflectionKind.Variable)) {
    const name = reflection.name;
    if (/^[A-Z][a-z]/.test(name) && !/^[A-Z0-9_]+$/.test(name)) return "Zod schemas";
  }
  return GROUPS.find(([pattern]) => pattern.test(file))?.[1];
}

/** Calls `fn` on each type directly inside `type`, replacing it with the result. */
function walkType(type, fn) {
  switch (type.type) {
    case "reference":
      if (type.typeArguments) type.typeArguments = type.typeArguments.map(fn);
      break;
    case "union":
    case "intersection":
      type.types = type.types.map(fn);
      break;
    case "array":
    case "optional":
    case "rest":
      type.elementType = fn(type.elementType);
      break;
    case "tuple":
      type.elements = type.elements.map(fn);
      break;
    case "typeOperator":
      type.target = fn(type.target);
      break;
  }
}

/**
 * A schema constant beside its interface (`Case` the zod object, `Case` the
 * type): shown as `ZodObject<Case>` (its zod class, the interface linked),
 * not as zod's spelled-out shape; the two share one comment.
 */
function schemaOf(project, variable, publicByName) {
  const pair = publicByName.get(variable.name);
  if (!pair?.kindOf(ReflectionKind.Interface | ReflectionKind.TypeAlias)) return;
  shareComment(pair, variable);
  const type = variable.type;
  if (type?.type !== "reference") return;
  const drop = (t) => {
    if (t instanceof ReflectionType) project.removeReflection(t.declaration);
    else if (t) {
      walkType(t, (inner) => {
        drop(inner);
        return inner;
      });
    }
  };
  for (const argument of type.typeArguments ?? []) drop(argument);
  type.typeArguments = [ReferenceType.createResolvedReference(pair.name, pair, project)];
}

/** The type alias a reflection belongs to, so that an alias never links to itself. */
function ownerAlias(reflection) {
  for (let r = reflection; r; r = r.parent) {
    if (r.kindOf(ReflectionKind.TypeAlias)) return r;
  }
  return undefined;
}

/** One comment for the pair: whichever half has one lends a copy to the other. */
function shareComment(alias, schema) {
  const has = (r) => r.comment?.summary.some((part) => part.text.trim() !== "");
  if (!has(alias) && has(schema)) alias.comment = schema.comment.clone();
  else if (has(alias) && !has(schema)) schema.comment = alias.comment.clone();
}

/** `export const X = Y;` where Y is another schema. */
function isRenamedSchema(context, schema) {
  const declaration = context.getSymbolFromReflection(schema)?.valueDeclaration;
  return (
    declaration !== undefined &&
    ts.isVariableDeclaration(declaration) &&
    declaration.initializer !== undefined &&
    ts.isIdentifier(declaration.initializer)
  );
}

/** The structural key of a type alias: its fields, or its string literals. */
function aliasKey(project, alias) {
  if (alias.children?.length) return fieldsKey(project, alias.children);
  // A z.enum, or an openEnum (its values plus `string & {}`).
  const type = alias.type;
  const values =
    type?.type === "union"
      ? type.types.filter((t) => t.type === "literal" && typeof t.value === "string")
      : [];
  return values.length
    ? `enum:${values
        .map((t) => t.value)
        .sort()
        .join("|")}`
    : undefined;
}

/**
 * The key of an anonymous object type: the same fields (by name and by the
 * schema property that declares them) as a type alias, or zod's enum object
 * `{ a: "a", b: "b" }` for a union of string literals.
 */
function literalKey(project, declaration) {
  const children = declaration.children;
  if (!children?.length || declaration.signatures?.length) return undefined;
  if (children.every((c) => c.type?.type === "literal" && c.type.value === c.name)) {
    return `enum:${children
      .map((c) => c.name)
      .sort()
      .join("|")}`;
  }
  return fieldsKey(project, children);
}

/** Names and declaring positions (not `sources`: typedoc.json disables those). */
function fieldsKey(project, children) {
  const parts = [];
  for (const child of children) {
    const id = project.getSymbolIdFromReflection(child);
    if (!id?.fileName || !Number.isFinite(id.pos)) return undefined;
    parts.push(`${child.name}@${id.fileName}:${id.pos}`);
  }
  return `fields:${parts.sort().join(",")}`;
}
