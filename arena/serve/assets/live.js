(function(){
// A game being played (arena serve): its moves come as server-sent events; when it is over, its replay.
var status=document.getElementById('winner'),info=document.getElementById('info');
var G=JSON.parse(document.getElementById('game').textContent),game=JSON.parse(document.getElementById('live-game').textContent);
var events=new EventSource(location.pathname.replace(/\/$/,'')+'/events?game='+encodeURIComponent(game)+
  '&from='+G.steps.length);
events.addEventListener('moves',function(e){
  var D=JSON.parse(e.data);window.arenaReplay.follow(D.steps);
  info.textContent=D.info;document.body.setAttribute('data-live-steps',D.total);});
events.addEventListener('over',function(e){
  var D=JSON.parse(e.data);events.close();status.textContent='over: its replay follows';
  document.body.setAttribute('data-over',D.game);location.href=D.href;});
})();
