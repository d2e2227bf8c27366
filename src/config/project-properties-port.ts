/**
 * What the configuration commands and model-policy resolution need from the tracker's project properties API
 * (Jira: /rest/api/3/project/{key}/properties/{propertyKey}). The tracker client implements it; the port lives
 * here, with its users, so that configuration does not depend on the providers above it.
 */
export interface ProjectPropertiesPort {
  /** The property's JSON value, or undefined when the property is unset (the tracker answers 404). */
  getProjectProperty(projectKey: string, propertyKey: string): Promise<unknown | undefined>;
  setProjectProperty(projectKey: string, propertyKey: string, value: unknown): Promise<void>;
  /** Deleting an unset property is not an error. */
  deleteProjectProperty(projectKey: string, propertyKey: string): Promise<void>;
}
