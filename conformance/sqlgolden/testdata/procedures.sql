-- Operations SQL has no words for, as procedures.
CREATE SCHEMA ns;
-- declare_table reserves a name without data.
CALL declare_table('ns.reserved');
SHOW FULL TABLES FROM ns;
SHOW TABLE STATUS FROM ns;
DESCRIBE ns.reserved;
SHOW CREATE TABLE ns.reserved;
CALL declare_table('ns.reserved');
-- deregister_table removes the entry and keeps the data; register_table adds it back.
CREATE TABLE root_data (id BIGINT, v VECTOR(2));
CALL deregister_table('root_data');
SHOW TABLES;
CALL register_table('ns.registered', 'root_data.lance');
SHOW TABLE STATUS FROM ns LIKE 'registered';
DESCRIBE ns.registered;
-- One-part names are in the current namespace; names with dots are backquoted.
USE ns;
CALL declare_table('local_one');
CREATE SCHEMA `d.ot`;
CALL declare_table('`d.ot`.t');
SHOW TABLES FROM `d.ot`;
-- Errors.
CALL deregister_table('ns.nosuch');
CALL register_table('ns.abs', '/etc/passwd');
CALL register_table('ns.up', '../outside');
CALL register_table('ns.x');
CALL register_table(1, 'x');
CALL declare_table('a..b');
CALL no_such_proc();
CALL vacuum_catalog('soon');
CALL vacuum_catalog('1h', 'extra');
-- vacuum_catalog keeps the latest version (the fakes remove nothing within an hour).
CALL vacuum_catalog('1h');
CALL vacuum_catalog();
