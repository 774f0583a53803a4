"""The part of PySide2.QtSql that perf's export-to-sqlite.py uses, over Python's sqlite3:
for perf 7.3's script in the oracles' trixie root, which has no PySide2
(tests/diff/export_callpaths_vs_perf.sh). It only stores what perf's C side computes
(the call-path tree is perf's db-export); values are bound as text, as the script binds
them (str()), and SQLite's column affinity makes integers of them, as with Qt's driver."""
import sqlite3


class _Error:
    def __init__(self, text):
        self._text = text

    def text(self):
        return self._text


class QSqlDatabase:
    @staticmethod
    def addDatabase(driver):
        assert driver == "QSQLITE"
        return QSqlDatabase()

    def setDatabaseName(self, name):
        self.name = name

    def open(self):
        # autocommit: the script sends its own BEGIN and END TRANSACTION
        self.conn = sqlite3.connect(self.name, isolation_level=None)
        return True


class QSqlQuery:
    def __init__(self, db):
        self.db, self.sql, self.values, self.error, self.cur = db, None, [], "", None

    def prepare(self, sql):
        self.sql = sql
        return True

    def addBindValue(self, value):
        self.values.append(value)

    def exec_(self, sql=None):
        try:
            if sql is None:
                self.cur = self.db.conn.execute(self.sql, self.values)
            else:
                self.cur = self.db.conn.execute(sql)
            return True
        except sqlite3.Error as e:
            self.error = str(e)
            return False
        finally:
            if sql is None:
                self.values = []

    def next(self):
        return self.cur is not None and self.cur.fetchone() is not None

    def lastError(self):
        return _Error(self.error)
