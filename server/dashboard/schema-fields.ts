// The dashboard's forms bypass the OpenAPI validator (it guards /v1), so their text fields are checked here against
// the same request schemas of the spec (length and pattern), before the services apply their own rules.
import type { FieldError } from '../errors.js';
import { loadSpec } from '../http/spec.js';

type Schema = Record<string, any>;

function resolved(schema: Schema): Schema {
  const document = loadSpec().document;
  const ref: string | undefined = schema.$ref ?? schema.allOf?.[0]?.$ref;
  if (!ref) return schema;
  const target = ref.replace('#/components/schemas/', '');
  return { ...document.components.schemas[target], ...schema, allOf: undefined };
}

/** The problems of the string fields given (present ones only) under the spec's schema `schemaName`. */
export function schemaProblems(schemaName: string, input: Record<string, string | undefined>): FieldError[] {
  const schema = loadSpec().document.components.schemas[schemaName] as Schema;
  const problems: FieldError[] = [];
  for (const [field, raw] of Object.entries(schema.properties ?? {})) {
    const value = input[field];
    if (value === undefined || value === '') continue;
    const property = resolved(raw as Schema);
    if (property.type !== 'string') continue;
    const length = [...value].length;
    if (property.maxLength !== undefined && length > property.maxLength) {
      problems.push({ field, message: `must be at most ${property.maxLength} characters` });
    } else if (property.pattern && !new RegExp(property.pattern, 'u').test(value)) {
      problems.push({
        field,
        message: property.enum ? 'is not one of the choices' : 'does not have the expected form',
      });
    } else if (property.enum && !property.enum.includes(value)) {
      problems.push({ field, message: `must be one of ${property.enum.join(', ')}` });
    }
  }
  return problems;
}
