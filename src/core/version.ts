/** The service's name and version, read from package.json: /health, GET / and the OpenAPI document say the same. */
import pkg from "../../package.json";

/** The service's name. */
export const serviceName: string = pkg.name;
/** The service's version. */
export const version: string = pkg.version;
