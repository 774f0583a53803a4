/* The SQLite export's schema, kept in step with SCHEMA.md (cli.export_sqlite compares them). */
#ifndef PMUTRACE_EXPORT_SQLITE_SCHEMA_H
#define PMUTRACE_EXPORT_SQLITE_SCHEMA_H

extern const char sq_schema_tables[];  /* CREATE TABLE of every table */
extern const char sq_schema_indexes[]; /* the samples indexes, then the view */
extern const char sq_schema_view[];    /* the view alone (--no-index) */

#endif
