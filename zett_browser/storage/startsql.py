"""The first screen's SQL as the storage runs it on SQLite: generated, do not edit.

Written by ``python -m zett_browser.storage.startgen`` from the storage's own queries;
tests/storage/test_quickstart.py fails when it is stale. Each statement: SQL text,
parameters (("arg", name, offset) or ("value", constant, 0)), result column names, and
the indexes of the columns read as lenient timestamps.
"""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

#: The page size of ``all_snapshot_versions``.
VERSIONS_PAGE = 1000
#: Tables and columns the storage requires (its schema check), columns these statements
#: need besides, and sort keys they were generated NOT NULL for (a nullable one adds a
#: NULL band: other SQL).
REQUIRED_TABLES = ('agent_sessions', 'raw_messages', 'session_snapshots')
REQUIRED_COLUMNS = (('agent_sessions', 'id'), ('agent_sessions', 'parent_session_id'), ('agent_sessions', 'title'), ('agent_sessions', 'agent_name'), ('agent_sessions', 'created_at'), ('agent_sessions', 'updated_at'), ('raw_messages', 'id'), ('raw_messages', 'session_id'), ('raw_messages', 'request_id'), ('raw_messages', 'sequence'), ('raw_messages', 'role'), ('raw_messages', 'content'), ('raw_messages', 'tool_name'), ('raw_messages', 'message_json'), ('raw_messages', 'metadata_json'), ('raw_messages', 'tags_json'), ('raw_messages', 'started_at'), ('raw_messages', 'completed_at'), ('raw_messages', 'duration_ns'), ('raw_messages', 'reasoning_started_at'), ('raw_messages', 'reasoning_completed_at'), ('raw_messages', 'reasoning_duration_ns'), ('raw_messages', 'content_started_at'), ('raw_messages', 'content_completed_at'), ('raw_messages', 'content_duration_ns'), ('raw_messages', 'input_tokens'), ('raw_messages', 'output_tokens'), ('raw_messages', 'cache_read_tokens'), ('raw_messages', 'cache_write_tokens'), ('raw_messages', 'reasoning_tokens'), ('raw_messages', 'created_at'), ('raw_messages', 'updated_at'), ('session_snapshots', 'id'), ('session_snapshots', 'session_id'), ('session_snapshots', 'version'), ('session_snapshots', 'compacted_through_sequence'), ('session_snapshots', 'message_json'), ('session_snapshots', 'created_at'), ('session_snapshots', 'updated_at'))
NEEDS_COLUMNS = (('agent_sessions', 'session_type'),)
NOT_NULL = (('agent_sessions', 'updated_at'), ('raw_messages', 'sequence'))

STATEMENTS: dict[str, tuple[str, tuple[tuple[str, Any, int], ...], tuple[str, ...], tuple[int, ...]]] = {
    'change_token': (
        'SELECT (SELECT max(agent_sessions.updated_at) AS max_1 \nFROM agent_sessions) AS anon_1, (SELECT max(session_snapshots.id) AS max_2 \nFROM session_snapshots) AS anon_2, (SELECT max(rowid) AS max_3 \nFROM raw_messages) AS anon_3',
        (),
        ('anon_1', 'anon_2', 'anon_3'),
        (),
    ),
    'list_roots': (
        'SELECT agent_sessions.id, agent_sessions.parent_session_id, agent_sessions.session_type AS session_type, agent_sessions.title, agent_sessions.agent_name, agent_sessions.created_at AS created_at, agent_sessions.updated_at AS updated_at, (SELECT coalesce(max(raw_messages.sequence), ?) AS coalesce_1 \nFROM raw_messages \nWHERE raw_messages.session_id = agent_sessions.id) AS message_count, (SELECT count(*) AS count_1 \nFROM agent_sessions AS child \nWHERE child.parent_session_id = agent_sessions.id) AS child_count, (SELECT count(*) AS count_2 \nFROM session_snapshots \nWHERE session_snapshots.session_id = agent_sessions.id) AS snapshot_count, page.sort_key \nFROM agent_sessions JOIN (SELECT agent_sessions.id AS id, agent_sessions.updated_at AS sort_key \nFROM agent_sessions \nWHERE coalesce(agent_sessions.parent_session_id, ?) = ? AND agent_sessions.updated_at IS NOT NULL ORDER BY agent_sessions.updated_at DESC, agent_sessions.id DESC\n LIMIT ? OFFSET ?) AS page ON page.id = agent_sessions.id ORDER BY agent_sessions.updated_at DESC, agent_sessions.id DESC',
        (('value', 0, 0), ('value', '', 0), ('value', '', 0), ('arg', 'roots_page', 1), ('value', 0, 0)),
        ('id', 'parent_session_id', 'session_type', 'title', 'agent_name', 'created_at', 'updated_at', 'message_count', 'child_count', 'snapshot_count', 'sort_key'),
        (5, 6),
    ),
    'get_node': (
        'SELECT agent_sessions.id, agent_sessions.parent_session_id, agent_sessions.session_type AS session_type, agent_sessions.title, agent_sessions.agent_name, agent_sessions.created_at AS created_at, agent_sessions.updated_at AS updated_at, (SELECT coalesce(max(raw_messages.sequence), ?) AS coalesce_1 \nFROM raw_messages \nWHERE raw_messages.session_id = agent_sessions.id) AS message_count, (SELECT count(*) AS count_1 \nFROM agent_sessions AS child \nWHERE child.parent_session_id = agent_sessions.id) AS child_count, (SELECT count(*) AS count_2 \nFROM session_snapshots \nWHERE session_snapshots.session_id = agent_sessions.id) AS snapshot_count \nFROM agent_sessions \nWHERE agent_sessions.id = ?',
        (('value', 0, 0), ('arg', 'session', 0)),
        ('id', 'parent_session_id', 'session_type', 'title', 'agent_name', 'created_at', 'updated_at', 'message_count', 'child_count', 'snapshot_count'),
        (5, 6),
    ),
    'raw_bounds': (
        'SELECT (SELECT min(raw_messages.sequence) AS min_1 \nFROM raw_messages \nWHERE raw_messages.session_id = ? AND raw_messages.sequence <= ?) AS anon_1, (SELECT max(raw_messages.sequence) AS max_1 \nFROM raw_messages \nWHERE raw_messages.session_id = ? AND raw_messages.sequence <= ?) AS anon_2, (SELECT count(*) AS count_1 \nFROM raw_messages \nWHERE raw_messages.session_id = ?) AS anon_3',
        (('arg', 'session', 0), ('value', 9223372036854775807, 0), ('arg', 'session', 0), ('value', 9223372036854775807, 0), ('arg', 'session', 0)),
        ('anon_1', 'anon_2', 'anon_3'),
        (),
    ),
    'versions_first': (
        'SELECT session_snapshots.id, session_snapshots.session_id, session_snapshots.version, session_snapshots.compacted_through_sequence, session_snapshots.created_at AS created_at, length(session_snapshots.message_json) AS stored_chars \nFROM session_snapshots \nWHERE session_snapshots.session_id = ? ORDER BY session_snapshots.version\n LIMIT ? OFFSET ?',
        (('arg', 'session', 0), ('arg', 'versions_page', 0), ('value', 0, 0)),
        ('id', 'session_id', 'version', 'compacted_through_sequence', 'created_at', 'stored_chars'),
        (4,),
    ),
    'versions_after': (
        'SELECT session_snapshots.id, session_snapshots.session_id, session_snapshots.version, session_snapshots.compacted_through_sequence, session_snapshots.created_at AS created_at, length(session_snapshots.message_json) AS stored_chars \nFROM session_snapshots \nWHERE session_snapshots.session_id = ? AND session_snapshots.version > ? ORDER BY session_snapshots.version\n LIMIT ? OFFSET ?',
        (('arg', 'session', 0), ('arg', 'after_version', 0), ('arg', 'versions_page', 0), ('value', 0, 0)),
        ('id', 'session_id', 'version', 'compacted_through_sequence', 'created_at', 'stored_chars'),
        (4,),
    ),
    'snapshot_latest': (
        'SELECT session_snapshots.id, session_snapshots.session_id, session_snapshots.version, session_snapshots.compacted_through_sequence, session_snapshots.message_json, session_snapshots.created_at AS created_at, session_snapshots.updated_at AS updated_at \nFROM session_snapshots \nWHERE session_snapshots.session_id = ? ORDER BY session_snapshots.version DESC\n LIMIT ? OFFSET ?',
        (('arg', 'session', 0), ('value', 1, 0), ('value', 0, 0)),
        ('id', 'session_id', 'version', 'compacted_through_sequence', 'message_json', 'created_at', 'updated_at'),
        (5, 6),
    ),
    'raw_page': (
        'SELECT raw_messages.id, raw_messages.session_id, raw_messages.request_id, raw_messages.sequence, raw_messages.role, raw_messages.tool_name, raw_messages.message_json, raw_messages.metadata_json, raw_messages.tags_json, raw_messages.started_at AS started_at, raw_messages.completed_at AS completed_at, raw_messages.duration_ns, raw_messages.reasoning_started_at AS reasoning_started_at, raw_messages.reasoning_completed_at AS reasoning_completed_at, raw_messages.reasoning_duration_ns, raw_messages.content_started_at AS content_started_at, raw_messages.content_completed_at AS content_completed_at, raw_messages.content_duration_ns, raw_messages.input_tokens, raw_messages.output_tokens, raw_messages.cache_read_tokens, raw_messages.cache_write_tokens, raw_messages.reasoning_tokens, raw_messages.created_at AS created_at, raw_messages.updated_at AS updated_at \nFROM raw_messages \nWHERE raw_messages.session_id = ? AND raw_messages.sequence IS NOT NULL ORDER BY raw_messages.sequence ASC, raw_messages.id ASC\n LIMIT ? OFFSET ?',
        (('arg', 'session', 0), ('arg', 'page_size', 0), ('value', 0, 0)),
        ('id', 'session_id', 'request_id', 'sequence', 'role', 'tool_name', 'message_json', 'metadata_json', 'tags_json', 'started_at', 'completed_at', 'duration_ns', 'reasoning_started_at', 'reasoning_completed_at', 'reasoning_duration_ns', 'content_started_at', 'content_completed_at', 'content_duration_ns', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'created_at', 'updated_at'),
        (9, 10, 12, 13, 15, 16, 23, 24),
    ),
    'ancestors_parent': (
        'SELECT agent_sessions.parent_session_id \nFROM agent_sessions \nWHERE agent_sessions.id = ?',
        (('arg', 'session', 0),),
        ('parent_session_id',),
        (),
    ),
}
