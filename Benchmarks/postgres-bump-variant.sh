# The variants of issue 40's bump, sourced by postgres-bump.sh and postgres-bump-profile.sh (not run),
# after Benchmarks/postgres-cluster.sh:
#
#     prepare_bump VARIANT URL REDERIVE_BIN
#
# makes the bump of `wall_metrics` ready on the database at URL: for the variant `half`, every other
# record's stored `wall_length_m` is first changed by hand, so that half the values change back;
# then `invalidate --processor wall_metrics`, VACUUM ANALYZE, and a wait until no other client is
# connected. Prints how many records the bump should change (0 for `same`).

prepare_bump() {
    local variant=$1 url=$2 rederive=$3 expected=0
    local psql=("$pgbin/psql" "$url" -X -v ON_ERROR_STOP=1 -A -t -q)
    case "$variant" in
    same) ;;
    half)
        "${psql[@]}" -c "UPDATE room_scans_derived SET wall_length_m = wall_length_m + 1 WHERE id % 2 = 0 AND wall_length_m IS NOT NULL"
        expected=$("${psql[@]}" -c "SELECT count(*) FROM room_scans_derived WHERE id % 2 = 0 AND wall_length_m IS NOT NULL")
        ;;
    *)
        echo "prepare_bump: no variant $variant (same or half)" >&2
        return 2
        ;;
    esac
    "$rederive" invalidate --db "$url" --processor wall_metrics >/dev/null
    "${psql[@]}" -c "VACUUM ANALYZE" >/dev/null
    quiesce
    echo "$expected"
}
