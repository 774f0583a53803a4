# bash completion for pmutrace: commands, then each command's long options as its --help
# lists them (so completion never goes stale), then files.
_pmutrace() {
	local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]}
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "dump script report convert synth metrics calibrate info record stat symbols annotate bundle export help --help --version" -- "$cur"))
		return
	fi
	if [ "$cmd" = help ]; then
		COMPREPLY=($(compgen -W "dump script report convert synth metrics calibrate info record stat symbols annotate bundle export" -- "$cur"))
		return
	fi
	if [ "$cmd" = export ] && [ "$COMP_CWORD" -eq 2 ]; then
		COMPREPLY=($(compgen -W "sqlite pprof postgresql" -- "$cur"))
		return
	fi
	if [[ $cur == -* ]]; then
		local opts
		opts=$("${COMP_WORDS[0]}" "$cmd" --help 2>&1 | grep -o -- '--[a-z0-9-]*' | sort -u)
		COMPREPLY=($(compgen -W "$opts --help" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _pmutrace pmutrace
