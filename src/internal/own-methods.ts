/**
 * Gives an instance its classes' public methods and getters as its own,
 * bound, enumerable properties, and returns it.
 *
 * Why: the factories that return these classes (`fileCheckpoint`, the
 * PostgreSQL stores and logs, the mock's clock) returned object literals of
 * closures before, and users compose such objects: they spread one into a
 * wrapper (`{ ...store, save }`), delegate to it (`Object.create(store)`) or
 * pass one method alone (`const { advance } = mock.clock`). A method that
 * reads `#private` fields refuses every such call ("Receiver must be an
 * instance of class ..."); bound own properties keep all three working.
 */
export function withOwnMethods<T extends object>(instance: T): T {
  for (
    let proto = Object.getPrototypeOf(instance) as object | null;
    proto !== null && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto) as object | null
  ) {
    for (const key of Reflect.ownKeys(proto)) {
      if (key === "constructor" || Object.hasOwn(instance, key)) continue;
      const own = ownDescriptor(instance, Object.getOwnPropertyDescriptor(proto, key));
      if (own !== undefined) Object.defineProperty(instance, key, own);
    }
  }
  return instance;
}

function ownDescriptor(
  instance: object,
  descriptor: PropertyDescriptor | undefined,
): PropertyDescriptor | undefined {
  if (typeof descriptor?.value === "function") {
    return {
      value: descriptor.value.bind(instance),
      enumerable: true,
      writable: true,
      configurable: true,
    };
  }
  if (descriptor?.get !== undefined) {
    return { get: descriptor.get.bind(instance), enumerable: true, configurable: true };
  }
  return undefined;
}
