// Query expansion for tool search. People ask in their words ("open a ticket", "show me the
// folder"), tools are named in API words (`create_issue`, `list_directory`): a query word also
// looks, with a lower weight, for the API words it usually stands for. The table is small and
// generic (the verbs of CRUD APIs and the nouns that have a standard synonym among them, in
// English, Spanish, German and French, and the words of Chinese, Japanese and Korean below),
// not a list for particular tools. Additions are kept only when bench/tools' tuning split does
// not get worse (its held-out split is never looked at for them).
import { tokenize } from './tokenize.js';

const TABLE: ReadonlyArray<[string, string]> = [
  // Verbs: what people say → the API verbs tools are named with.
  ['make new add open start file setup build', 'create'],
  ['show view fetch retrieve display see check look read', 'get'],
  ['show every all enumerate', 'list'],
  ['find lookup seek look locate query', 'search'],
  ['remove drop erase destroy trash rm', 'delete'],
  ['change modify edit rename set bump patch', 'update'],
  ['post message tell notify', 'send'],
  ['save store', 'write put'],
  ['upload store', 'put'],
  ['go visit browse open', 'navigate'],
  ['execute exec trigger launch start', 'run'],
  ['give', 'assign'],
  ['remember recall memorize memorise', 'memory'],
  ['silence quiet snooze', 'mute downtime'],
  ['upload', 'push'],
  ['lately recently', 'recent history'],
  ['saying said talking discussing discussed', 'message history'],
  ['ship publish release', 'deploy merge'],
  ['reply answer respond', 'reply comment'],
  ['press tap hit', 'click'],
  ['pick choose', 'select'],
  ['type enter fill', 'type fill'],
  ['ls', 'list directory'],
  ['mkdir', 'create directory'],
  // Nouns.
  ['ticket bug problem', 'issue'],
  ['error exception crash', 'issue error'],
  ['repo', 'repository'],
  ['folder dir', 'directory'],
  ['pr', 'pull request'],
  ['mr', 'merge request'],
  ['msg chat', 'message'],
  ['doc docs', 'document'],
  ['db', 'database'],
  ['column columns structure fields', 'schema describe'],
  ['picture photo pic capture', 'screenshot image'],
  ['note remark', 'comment'],
  ['person people member', 'user'],
  ['room', 'channel'],
  ['gps latitude longitude latlng', 'coordinate location geocode'],
  ['coordinate coordinates', 'geocode'],
  ['phone smartphone', 'mobile device'],
  ['web internet online', 'web search'],
  ['env', 'environment variable'],
  ['dropdown combobox', 'select option'],
  ['txt md csv json yaml yml readme', 'file'],
  ['k8s', 'kubernetes'],
  ['kill quit', 'terminate stop'],
  ['retry restart', 'rerun'],
  ['summarize summarise tldr', 'summarizer summary'],
  ['route', 'direction'],
  ['far', 'distance'],
  ['altitude height', 'elevation'],
  ['nearby near', 'local place'],
  ['address', 'geocode'],
  ['plot graph visualize visualise', 'chart'],
  ['subtitles captions', 'transcript'],
  ['alert alarm alerts', 'monitor'],
  ['outage', 'incident'],
  ['statistics stats usage', 'metric analytics'],
  ['sql', 'query database'],
  ['row rows entry entries', 'record'],
  ['tag tags', 'label'],
  ['duplicate copy', 'clone fork'],
  ['signin authenticate', 'login'],
  ['refresh', 'reload'],
  ['traffic', 'network request'],
  ['speed slow', 'performance'],
  ['accessibility seo', 'audit lighthouse'],
  ['tunnel', 'port forward'],
  ['emoji', 'reaction'],
  ['conversation', 'thread'],
  ['share collaborator', 'permission member'],
  // Spanish, German and French: the same verbs and nouns (accents are dropped before matching).
  ['buscar busca busque encontrar encuentra', 'search find'],
  ['crear crea cree nuevo nueva', 'create new'],
  ['borrar borra eliminar elimina', 'delete remove'],
  ['actualizar actualiza modificar modifica editar edita cambiar cambia', 'update edit'],
  ['enviar envia manda mandar', 'send'],
  ['listar mostrar muestra', 'list show'],
  ['leer lee abrir abre', 'read open get'],
  ['noticias noticia', 'news'],
  ['archivo archivos fichero', 'file'],
  ['carpeta directorio', 'directory folder'],
  ['mensaje mensajes', 'message'],
  ['correo', 'email mail'],
  ['pagina', 'page'],
  ['captura pantallazo', 'screenshot'],
  ['rama', 'branch'],
  ['repositorio', 'repository'],
  ['usuario usuarios', 'user'],
  ['clima tiempo', 'weather'],
  ['tarea tareas', 'task issue'],
  ['canal', 'channel'],
  ['documento', 'document'],
  ['comentario', 'comment'],
  ['tabla', 'table'],
  ['suche suchen finde finden', 'search find'],
  ['erstelle erstellen anlegen', 'create'],
  ['neu neue neues neuen', 'new'],
  ['losche loschen entferne entfernen', 'delete remove'],
  ['aktualisiere aktualisieren bearbeite bearbeiten', 'update edit'],
  ['sende senden schicke schicken', 'send'],
  ['zeige zeigen auflisten', 'list show'],
  ['lesen offne offnen', 'read open'],
  ['nachrichten', 'news message'],
  ['nachricht', 'message'],
  ['datei dateien', 'file'],
  ['ordner verzeichnis', 'directory folder'],
  ['seite', 'page'],
  ['bildschirmfoto', 'screenshot'],
  ['zweig', 'branch'],
  ['benutzer nutzer', 'user'],
  ['wetter', 'weather'],
  ['aufgabe aufgaben', 'task issue'],
  ['kanal', 'channel'],
  ['dokument', 'document'],
  ['kommentar', 'comment'],
  ['tabelle', 'table'],
  ['cherche chercher recherche rechercher trouve trouver', 'search find'],
  ['creer creez nouveau nouvelle', 'create new'],
  ['supprime supprimer efface effacer', 'delete remove'],
  ['modifie modifier', 'update edit'],
  ['envoie envoyer', 'send'],
  ['affiche afficher montre montrer lister', 'list show'],
  ['lire ouvre ouvrir', 'read open'],
  ['actualites nouvelles', 'news'],
  ['fichier fichiers', 'file'],
  ['dossier repertoire', 'directory folder'],
  ['courriel', 'email'],
  ['branche', 'branch'],
  ['depot', 'repository'],
  ['utilisateur', 'user'],
  ['meteo', 'weather'],
  ['tache', 'task issue'],
  ['chaine', 'channel'],
  ['commentaire', 'comment'],
  ['tableau', 'table'],
];

/**
 * The same for people who ask in Chinese, Japanese or Korean while tool descriptions are in
 * English: the CRUD verbs and the common nouns of tool APIs. Matched as substrings of the query
 * (these scripts have no spaces to find words by); a match adds the English words.
 */
const CJK: ReadonlyArray<[string, string]> = [
  // Chinese
  ['创建 新建 新增 添加 增加', 'create add'],
  ['删除 移除', 'delete remove'],
  ['更新 修改 编辑', 'update edit'],
  ['获取 查看 读取 读出 打开', 'get read'],
  ['列出 列表 所有', 'list'],
  ['搜索 查找 查询 搜', 'search'],
  ['发送 发消息 发一', 'send'],
  ['写入 保存', 'write save'],
  ['文件夹 目录', 'directory folder'],
  ['文件', 'file'],
  ['消息', 'message'],
  ['网页 页面', 'page web'],
  ['截图 截屏 截个', 'screenshot'],
  ['日志', 'log'],
  ['用户', 'user'],
  ['频道', 'channel'],
  ['文档', 'document'],
  ['评论', 'comment'],
  ['分支', 'branch'],
  ['合并请求', 'merge request'],
  ['仓库', 'repository'],
  ['图表', 'chart'],
  // Japanese
  ['作成 追加 作って', 'create add'],
  ['削除 消して', 'delete remove'],
  ['更新 編集 変更', 'update edit'],
  ['取得 表示 見せて 読み 読ん 読む 開いて', 'get read'],
  ['一覧', 'list'],
  ['検索 探して', 'search'],
  ['送信 送って', 'send'],
  ['書き込 書いて 保存', 'write save'],
  ['フォルダ ディレクトリ', 'directory folder'],
  ['ファイル', 'file'],
  ['メッセージ', 'message'],
  ['ページ', 'page'],
  ['スクリーンショット スクショ', 'screenshot'],
  ['ログ', 'log'],
  ['ユーザー', 'user'],
  ['チャンネル', 'channel'],
  ['ドキュメント', 'document'],
  ['コメント', 'comment'],
  ['ブランチ', 'branch'],
  ['プルリクエスト プルリク', 'pull request'],
  ['リポジトリ', 'repository'],
  // Korean
  ['만들 생성 추가', 'create add'],
  ['삭제 지워', 'delete remove'],
  ['수정 업데이트 편집', 'update edit'],
  ['가져 조회 보여 읽어', 'get read'],
  ['목록', 'list'],
  ['검색 찾아', 'search'],
  ['보내 전송', 'send'],
  ['저장', 'write save'],
  ['폴더 디렉터리', 'directory folder'],
  ['파일', 'file'],
  ['메시지', 'message'],
  ['페이지', 'page'],
  ['스크린샷', 'screenshot'],
  ['로그', 'log'],
  ['사용자', 'user'],
  ['채널', 'channel'],
  ['문서', 'document'],
  ['댓글', 'comment'],
];
const CJK_WORDS: ReadonlyArray<[string, readonly string[]]> = CJK.flatMap(([from, to]) =>
  from.split(' ').map((w) => [w, tokenize(to, true)] as [string, string[]]),
);

/** Index term → the terms it also looks for (stemmed as the index stems them). */
const EXPANSIONS: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, Set<string>>();
  for (const [from, to] of TABLE) {
    const targets = tokenize(to, true);
    for (const word of tokenize(from, true)) {
      const set = map.get(word) ?? new Set<string>();
      for (const t of targets) if (t !== word) set.add(t);
      map.set(word, set);
    }
  }
  return new Map([...map].map(([k, v]) => [k, [...v]]));
})();

/** The default weight of a term a query gets by expansion, against 1 for its own words. */
export const EXPANSION_WEIGHT = 0.85;
const ASCII = /^[\x20-\x7e]*$/;
const HASHTAG = /(?:^|\s)#[\p{L}\p{N}][\p{L}\p{N}_-]*/u;

/** A query's terms with their weights: its own words (1), then the words they stand for (`weight`; 0: none). */
export function queryTerms(query: string, weight = EXPANSION_WEIGHT): Map<string, number> {
  const own = tokenize(query);
  const terms = new Map<string, number>();
  for (const t of own) terms.set(t, 1);
  if (weight <= 0) return terms;
  for (const t of own) {
    for (const x of EXPANSIONS.get(t) ?? []) if (!terms.has(x)) terms.set(x, weight);
  }
  // "#general": a channel, as chat apps write them.
  if (HASHTAG.test(query) && !terms.has('channel')) terms.set('channel', weight);
  if (!ASCII.test(query)) {
    for (const [word, to] of CJK_WORDS) {
      if (query.includes(word)) for (const x of to) if (!terms.has(x)) terms.set(x, weight);
    }
  }
  return terms;
}
