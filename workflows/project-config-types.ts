export type ProjectRepositoriesCheck =
  | { status: 'configured'; source: 'project_properties' | 'environment'; repositories: string[]; default_repo: string | null }
  | { status: 'missing'; missing: string[]; problems: string[]; require_project_config: boolean }
  | { status: 'unchecked'; reason: string };
