import { isPlainObject } from '../../plain-object.js';
import { ListShapeError, listPageOf } from './list-page.js';

/** What a shape check of a read's body answers: why the body is not what the endpoint serves, or undefined. */
export type ShapeCheck = (body: unknown) => string | undefined;

const NO_CONTEXT = { method: '', url: '' };

/**
 * Why a body is no list page of any envelope the API uses (./list-page.ts), or
 * undefined when it is one: `{"data": null}` for a thread, an object holding no
 * list. A read answered so is retried like a 5xx (see Errors: a layer in front
 * of the API answers in its own shape).
 */
export const listShapeProblem: ShapeCheck = (body) => {
  try {
    listPageOf(body, NO_CONTEXT);
    return undefined;
  } catch (error) {
    if (error instanceof ListShapeError) return error.why;
    throw error;
  }
};

/**
 * Why a body is no single resource, or undefined when it is one: a resource is
 * a JSON object, wrapped as `{data: <resource>}` (Conventions) or carrying more
 * than the wrapper's keys (`/me` with its organization). A wrapper with nothing
 * in `data` (`{"data": null}`, `{"message": "…"}` alone) holds no resource.
 */
export const resourceShapeProblem: ShapeCheck = (body) => {
  if (!isPlainObject(body)) return 'expected a JSON object';
  const wrapperOnly = Object.keys(body).every((k) => k === 'data' || k === 'message' || k === 'success');
  if (wrapperOnly && !isPlainObject(body.data)) return 'no resource in `data`';
  return undefined;
};
