(function(){
var G=JSON.parse(document.getElementById('game').textContent);
var board=document.getElementById('board'),racks=document.getElementById('racks');
var moves=document.getElementById('moves'),box=document.getElementById('moves-box'),slider=document.getElementById('slider');
var label=document.getElementById('label'),result=document.getElementById('result');
// A game being played (arena serve) has no result and no final position yet.
var live=result.hasAttribute('data-live');
var playBtn=document.getElementById('play'),last=G.steps.length-1,at=0,timer=null;
// A step after the deal holds only what changed since the step before: [index, value] of the cells ('put')
// and of the racks ('rack'); made whole here, once.
function expand(s,before){
  if(s.board){return s;}
  s.board=before.board.slice();s.put.forEach(function(p){s.board[p[0]]=p[1];});
  s.racks=before.racks.slice();s.rack.forEach(function(p){s.racks[p[0]]=p[1];});
  delete s.put;delete s.rack;return s;}
for(var k=1;k<G.steps.length;k++){expand(G.steps[k],G.steps[k-1]);}
function glyph(name){
  var g=G.glyphs[name];
  if(g===undefined){return document.createTextNode(name);}
  if(g.indexOf('svg:')===0){
    var ns='http://www.w3.org/2000/svg',s=document.createElementNS(ns,'svg'),u=document.createElementNS(ns,'use');
    s.setAttribute('class','glyph');s.setAttribute('viewBox','0 0 24 24');
    u.setAttribute('href','#sym-'+g.slice(4));s.appendChild(u);return s;}
  return document.createTextNode(g);}
function tile(color,name){
  var t=document.createElement('span');t.className='tile';t.style.background=G.colors[color];
  t.setAttribute('data-color',color);t.setAttribute('data-tile',name);t.title=color+' '+name;
  t.appendChild(glyph(name));return t;}
function coord(text){var d=document.createElement('div');d.className='coord';d.textContent=text;board.appendChild(d);}
// The board with its coordinates: columns 1-9 above, rows A-I on the left, as moves name cells (D9).
coord('');
for(var j=0;j<9;j++){coord(String(j+1));}
var cells=[];
for(var i=0;i<81;i++){
  var c=document.createElement('div'),row=Math.floor(i/9),col=i%9;
  if(col===0){coord(G.cells[i].charAt(0));}
  c.className='cell r'+((Math.floor(row/3)+Math.floor(col/3))%2)+(col%3===0&&col?' c3':'')+(row%3===0&&row?' row3':'');
  c.setAttribute('data-cell',G.cells[i]);c.setAttribute('data-region',G.regions[i]);
  board.appendChild(c);cells.push(c);}
// The moves table: one row per step, its columns as G.columns lists them (a step's row holds their texts).
var head=document.createElement('tr');
G.columns.forEach(function(col){var th=document.createElement('th');th.textContent=col[1];head.appendChild(th);});
moves.tHead.appendChild(head);
var rows=[];
function addRow(s,k){
  var tr=document.createElement('tr');tr.setAttribute('data-step',k);tr.title=s.label;
  G.columns.forEach(function(col,n){
    var td=document.createElement('td');td.setAttribute('data-col',col[0]);
    td.textContent=s.row?s.row[col[0]]:(n===G.columns.length-1?'the deal':'');tr.appendChild(td);});
  tr.addEventListener('click',function(){stop();show(k);});moves.tBodies[0].appendChild(tr);rows.push(tr);}
G.steps.forEach(addRow);
slider.max=last;
// The URL's fragment names the move shown: #40 is the position after move 40, #deal the deal.
function fragment(k){return k===0?'deal':String(k-1);}
function fromFragment(){
  var h=decodeURIComponent(location.hash.slice(1));
  if(h==='deal'){return 0;}
  if(/^\d+$/.test(h)){return Math.min(last,parseInt(h,10)+1);}
  return null;}
function show(k){
  at=Math.max(0,Math.min(last,k));var s=G.steps[at];
  for(var i=0;i<81;i++){
    var c=cells[i],v=s.board[i];c.textContent='';c.classList.remove('last','captured');
    c.removeAttribute('data-color');c.removeAttribute('data-tile');
    if(v){c.appendChild(tile(v[0],v[1]));c.setAttribute('data-color',v[0]);c.setAttribute('data-tile',v[1]);
      c.title=G.cells[i]+': '+v[0]+' '+v[1];
      if(v.length>2){c.classList.add('captured');var m=document.createElement('span');m.className='capmark';
        m.style.setProperty('--cap',G.colors[v[2]]);m.textContent='\u2715';c.appendChild(m);
        c.title+=', captured '+v[2];}}
    else{var r=document.createElement('span');r.className='region';r.appendChild(glyph(G.regions[i]));c.appendChild(r);
      c.title=G.cells[i]+': empty, region '+G.regions[i];}
    if(G.cells[i]===s.cell){c.classList.add('last');}}
  racks.textContent='';
  s.racks.forEach(function(r){
    var d=document.createElement('div');d.className='rack';d.setAttribute('data-color',r.color);
    var w=document.createElement('span');w.className='who';
    var caps=s.captures[r.seat],ct=Object.keys(caps).map(function(k){return caps[k]+' '+k;}).join(', ');
    w.textContent=r.color+' (seat '+r.seat+' '+G.names[r.seat]+')';w.title=G.specs[r.seat]||G.names[r.seat];
    d.appendChild(w);
    r.tiles.forEach(function(t){d.appendChild(tile(r.color,t));});
    var p=document.createElement('span');p.className='pile';p.setAttribute('data-pile',r.pile);
    p.textContent=r.finished?' finished':' '+r.pile+' in the pile';d.appendChild(p);
    var cp=document.createElement('span');cp.className='captures';cp.textContent=ct?' captured: '+ct:'';
    d.appendChild(cp);racks.appendChild(d);});
  rows.forEach(function(tr,k){
    if(k===at){tr.classList.add('current');tr.setAttribute('aria-current','step');
      var top=tr.offsetTop;
      if(top<box.scrollTop+20||top>box.scrollTop+box.clientHeight-20){box.scrollTop=top-box.clientHeight/2;}}
    else{tr.classList.remove('current');tr.removeAttribute('aria-current');}});
  slider.value=at;label.textContent=at===last&&at&&!live?'final position after '+s.label:s.label;
  result.hidden=at!==last||live;document.body.setAttribute('data-step',at);
  if(fromFragment()!==at){try{history.replaceState(null,'','#'+fragment(at));}catch(e){location.hash=fragment(at);}}}
function stop(){if(timer){clearInterval(timer);timer=null;}playBtn.textContent='\u25b6 play';}
function play(){if(timer){stop();return;}if(at===last){show(0);}
  playBtn.textContent='\u23f8 pause';timer=setInterval(function(){if(at>=last){stop();}else{show(at+1);}},700);}
document.getElementById('first').onclick=function(){stop();show(0);};
document.getElementById('back').onclick=function(){stop();show(at-1);};
document.getElementById('forward').onclick=function(){stop();show(at+1);};
document.getElementById('last').onclick=function(){stop();show(last);};
playBtn.onclick=play;
slider.addEventListener('input',function(){stop();show(parseInt(slider.value,10));});
window.addEventListener('hashchange',function(){var k=fromFragment();if(k!==null&&k!==at){stop();show(k);}});
document.addEventListener('keydown',function(e){
  if(e.target===slider||e.altKey||e.ctrlKey||e.metaKey){return;}
  if(e.key==='ArrowRight'){stop();show(at+1);e.preventDefault();}
  else if(e.key==='ArrowLeft'){stop();show(at-1);e.preventDefault();}
  else if(e.key==='Home'){stop();show(0);e.preventDefault();}
  else if(e.key==='End'){stop();show(last);e.preventDefault();}
  else if(e.key===' '){play();e.preventDefault();}});
var start=fromFragment();
show(start===null?last:start);
// A game being played (arena serve): follow(steps) adds the moves made since; the page shown moves on
// with them while it shows the last position.
window.arenaReplay={follow:function(steps){
  var following=at===last;
  steps.forEach(function(s){G.steps.push(expand(s,G.steps[G.steps.length-1]));addRow(s,G.steps.length-1);});
  last=G.steps.length-1;slider.max=last;show(following?last:at);}};
})();
